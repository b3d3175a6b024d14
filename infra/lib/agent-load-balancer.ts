import { Duration, Validations } from "aws-cdk-lib";
import { MathExpression } from "aws-cdk-lib/aws-cloudwatch";
import { type IVpc, SubnetType } from "aws-cdk-lib/aws-ec2";
import {
  type ApplicationListener,
  ApplicationLoadBalancer,
  ApplicationProtocol,
  ApplicationTargetGroup,
  HttpCodeElb,
  HttpCodeTarget,
  type IApplicationTargetGroup,
  ListenerAction,
  ListenerCertificate,
  ListenerCondition,
  MutualAuthenticationMode,
  SslPolicy,
  TrustStore,
} from "aws-cdk-lib/aws-elasticloadbalancingv2";
import { LambdaTarget } from "aws-cdk-lib/aws-elasticloadbalancingv2-targets";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { Construct } from "constructs";
import { AgentServiceSettings } from "../../functions/agent-service/settings.js";
import {
  AgentRoutes,
  c2ApiRoutes,
  loadBalancerPathPattern,
  servedPaths,
} from "../../functions/core/c2/routes.js";
import type { AgentIngress, AgentIngressProps } from "./agent-ingress.js";
import type { AgentIngressMetrics, Monitoring } from "./monitoring.js";

export interface AgentLoadBalancerProps extends Omit<AgentIngressProps, "handler"> {
  readonly vpc: IVpc;
  readonly deletionProtection: boolean;
  /** The ports agents connect to, each a listener with the same mutual TLS and the same rules. */
  readonly ports: readonly number[];
  /** What answers agents: the agent-api function (its routes alone), or the agent service's targets (everything). */
  readonly agentApi: { readonly handler: IFunction } | { readonly service: IApplicationTargetGroup };
  /**
   * Where what streams goes, debug bundles' uploads and assets' downloads: the agent service's tasks in a target
   * group of their own, which serves nothing else, so that the agent API's target group and its latency alarm see
   * the agent API alone. A Lambda target takes and answers 1 MB of body at most; assets run to 100 MB and more.
   */
  readonly streamed: IApplicationTargetGroup;
}

/** The listener on HTTPS's port keeps the id it always had, so that deploying another port leaves it in place. */
const listenerId = (port: number): string => (port === 443 ? "Https" : `Https${port}`);

/**
 * The agent API behind an Application Load Balancer for large fleets: it charges for capacity, not per
 * request. Mutual TLS in verify mode refuses any client whose certificate does not chain to the truststore;
 * the load balancer hands the verified certificate to the function or the agent service in
 * `X-Amzn-Mtls-Clientcert-*` headers. It listens on each port agents carry in their URLs, HTTPS on every one:
 * no listener takes plain HTTP, since Beacon accepts no agent without a client certificate.
 */
export class AgentLoadBalancer extends Construct implements AgentIngress {
  readonly metrics: AgentIngressMetrics;
  readonly dnsTarget: string;

  constructor(scope: Construct, id: string, props: AgentLoadBalancerProps) {
    super(scope, id);
    const loadBalancer = new ApplicationLoadBalancer(this, "LoadBalancer", {
      vpc: props.vpc,
      internetFacing: true,
      vpcSubnets: { subnetType: SubnetType.PUBLIC },
      dropInvalidHeaderFields: true,
      deletionProtection: props.deletionProtection,
      // Agents' kept-alive connections outlive a heartbeat interval (AgentServiceSettings says why); the agent
      // service keeps idle connections open longer than this, so it never closes one the balancer reuses.
      idleTimeout: Duration.seconds(AgentServiceSettings.loadBalancerIdleTimeoutSeconds),
    });
    Validations.of(loadBalancer).acknowledge({
      id: "AwsSolutions-ELB2",
      reason:
        "Every request reaches the agent-api function, whose logs and metrics already record it; access logs " +
        "would add an S3 log pipeline for a duplicate record at fleet volume.",
    });
    this.dnsTarget = loadBalancer.loadBalancerDnsName;

    const trustStore = new TrustStore(this, "TrustStore", {
      bucket: props.truststore.bucket,
      key: props.truststore.key,
    });
    trustStore.node.addDependency(props.truststore.upload);

    // Each listener is open to the internet on its port (the load balancer's security group admits it).
    const listeners = props.ports.map((port) =>
      loadBalancer.addListener(listenerId(port), {
        port,
        protocol: ApplicationProtocol.HTTPS,
        sslPolicy: SslPolicy.RECOMMENDED_TLS,
        certificates: [ListenerCertificate.fromArn(props.domain.certificateArn)],
        mutualAuthentication: {
          mutualAuthenticationMode: MutualAuthenticationMode.VERIFY,
          trustStore,
          ignoreClientCertificateExpiry: false,
        },
        // The agent service answers every path as the agent-api function does, unknown ones with 404 too.
        defaultAction:
          "service" in props.agentApi
            ? ListenerAction.forward([props.agentApi.service])
            : ListenerAction.fixedResponse(404, {
                contentType: "application/json",
                messageBody: JSON.stringify({ error: "not found" }),
              }),
      }),
    );
    Validations.of(loadBalancer).acknowledge({
      id: "AwsSolutions-EC23",
      reason:
        "Agents connect from anywhere on the internet; the listeners admit only clients whose certificate " +
        "chains to the truststore, checked during the TLS handshake.",
    });
    const agentApiTargets =
      "handler" in props.agentApi
        ? new ApplicationTargetGroup(this, "AgentApiTargets", {
            targets: [new LambdaTarget(props.agentApi.handler)],
          })
        : props.agentApi.service;
    for (const listener of listeners) {
      listener.addAction("DebugBundles", {
        priority: 5,
        conditions: [
          ListenerCondition.pathPatterns([loadBalancerPathPattern(AgentRoutes.debugBundle.path)]),
          ListenerCondition.httpRequestMethods([AgentRoutes.debugBundle.method]),
        ],
        action: ListenerAction.forward([props.streamed]),
      });
      listener.addAction("AssetDownloads", {
        priority: 6,
        conditions: [
          ListenerCondition.pathPatterns([loadBalancerPathPattern(AgentRoutes.assetContent.path)]),
          ListenerCondition.httpRequestMethods([AgentRoutes.assetContent.method]),
        ],
        action: ListenerAction.forward([props.streamed]),
      });
      if ("handler" in props.agentApi) routeToFunction(listener, agentApiTargets);
    }
    const period = Duration.minutes(5);
    const { metrics } = loadBalancer;
    this.metrics = {
      requests: metrics.requestCount({ period }),
      serverErrors: new MathExpression({
        expression: "FILL(balancer, 0) + FILL(target, 0)",
        usingMetrics: {
          balancer: metrics.httpCodeElb(HttpCodeElb.ELB_5XX_COUNT, { period }),
          target: metrics.httpCodeTarget(HttpCodeTarget.TARGET_5XX_COUNT, { period }),
        },
        period,
      }),
      latencyP99Ms: new MathExpression({
        expression: "1000 * seconds",
        // The agent API's targets alone: a debug bundle's upload is answered once its last byte is in.
        usingMetrics: {
          seconds: agentApiTargets.metrics.targetResponseTime({ period, statistic: "p99" }),
        },
        period,
        label: "Agent p99 latency (ms)",
      }),
    };
  }

  watchedBy(monitoring: Monitoring): void {
    monitoring.watchAgentIngress(this.metrics);
  }
}

/**
 * One rule per route, with every path it is served at (to the balancer a path parameter is a wildcard), to the
 * function. A rule per route, not per method: a condition matches three values at most. Asset downloads have
 * their rule to the streaming targets instead; each other route keeps the priority of its place in the list.
 */
function routeToFunction(listener: ApplicationListener, targets: IApplicationTargetGroup): void {
  c2ApiRoutes.forEach((route, index) => {
    if (route === AgentRoutes.assetContent) return;
    listener.addAction(index === 0 ? "AgentApi" : `AgentApi${index + 1}`, {
      priority: 10 * (index + 1),
      conditions: [
        ListenerCondition.pathPatterns(servedPaths(route).map(loadBalancerPathPattern)),
        ListenerCondition.httpRequestMethods([route.method]),
      ],
      action: ListenerAction.forward([targets]),
    });
  });
}

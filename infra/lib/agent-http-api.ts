import { Annotations, Duration, type RemovalPolicy, Validations } from "aws-cdk-lib";
import { DomainName, HttpApi, HttpMethod, SecurityPolicy } from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import { Certificate } from "aws-cdk-lib/aws-certificatemanager";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { MAX_ASSET_BYTES } from "../../functions/core/assets/model.js";
import { allAgentRoutes, servedRouteKeys } from "../../functions/core/c2/routes.js";
import { FUNCTION_RESPONSE_BODY_MAX_BYTES } from "../../functions/shared/agent-request.js";
import { accessLogsOf } from "./access-logs.js";
import type { AgentIngress, AgentIngressProps } from "./agent-ingress.js";
import type { StageSettings } from "./config.js";
import type { AgentIngressMetrics, Monitoring } from "./monitoring.js";

/** The id of the warning every synthesis behind the HTTP API prints: larger assets need the load balancer. */
export const ASSET_SIZE_WARNING_ID = "beacon:agentIngressAssetSize";

const MIB = 1024 * 1024;

export interface AgentHttpApiProps extends AgentIngressProps {
  readonly throttle: StageSettings["agentThrottle"];
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The agent API on API Gateway: reachable only through its custom domain, which demands a client certificate
 * the truststore verifies. The default execute-api endpoint is disabled, so nothing gets around mutual TLS.
 */
export class AgentHttpApi extends Construct implements AgentIngress {
  readonly metrics: AgentIngressMetrics;
  readonly dnsTarget: string;

  constructor(scope: Construct, id: string, props: AgentHttpApiProps) {
    super(scope, id);
    const domainName = new DomainName(this, "Domain", {
      domainName: props.domain.domainName,
      certificate: Certificate.fromCertificateArn(this, "Certificate", props.domain.certificateArn),
      securityPolicy: SecurityPolicy.TLS_1_2,
      mtls: { bucket: props.truststore.bucket, key: props.truststore.key },
    });
    domainName.node.addDependency(props.truststore.upload);
    this.dnsTarget = domainName.regionalDomainName;

    const api = new HttpApi(this, "Api", {
      description: "Beacon agent C2 API (mutual TLS)",
      disableExecuteApiEndpoint: true,
      createDefaultStage: false,
    });
    api.addStage("DefaultStage", {
      autoDeploy: true,
      domainMapping: { domainName },
      throttle: { rateLimit: props.throttle.requestsPerSecond, burstLimit: props.throttle.burst },
      accessLogSettings: accessLogsOf(this, props, {
        clientCertSerial: "$context.identity.clientCert.serialNumber",
        clientCertIssuer: "$context.identity.clientCert.issuerDN",
      }),
    });

    const integration = new HttpLambdaIntegration("AgentApi", props.handler);
    const routes = servedRouteKeys(allAgentRoutes).flatMap(({ method, path }) =>
      api.addRoutes({ path, methods: [HttpMethod[method]], integration }),
    );
    for (const route of routes) {
      Validations.of(route).acknowledge({
        id: "AwsSolutions-APIG4",
        reason:
          "Agents authenticate with mutual TLS on the custom domain (the default endpoint is disabled); the " +
          "handler takes the tenant from the verified certificate. MiNiFi agents cannot send tokens.",
      });
    }

    // A redirect to a presigned link would carry larger assets, but MiNiFi C++ does not follow redirects on a
    // download and keeps the redirect's body as the asset (docs/agents.md#large-assets-and-the-agent-ingress).
    Annotations.of(this).addWarningV2(
      ASSET_SIZE_WARNING_ID,
      `Agents download assets of up to ${FUNCTION_RESPONSE_BODY_MAX_BYTES / MIB} MiB through the HTTP ` +
        "API, what a Lambda invocation answers with; a larger one is answered 501 content_too_large_for_ingress. " +
        `Deploy with -c agentIngress=alb for tenants with larger assets (up to ${MAX_ASSET_BYTES / MIB} MiB).`,
    );

    const period = Duration.minutes(5);
    this.metrics = {
      requests: api.metricCount({ period }),
      serverErrors: api.metricServerError({ period }),
      latencyP99Ms: api.metricLatency({ period, statistic: "p99", label: "Agent p99 latency (ms)" }),
    };
  }

  watchedBy(monitoring: Monitoring): void {
    monitoring.watchAgentIngress(this.metrics);
  }
}

import { Validations } from "aws-cdk-lib";
import { type IVpc, Peer, Port, SecurityGroup, SubnetType } from "aws-cdk-lib/aws-ec2";
import { NetworkListenerAction, NetworkLoadBalancer, Protocol } from "aws-cdk-lib/aws-elasticloadbalancingv2";
import { Construct } from "constructs";
import type { AgentIngress } from "./agent-ingress.js";
import type { AgentService } from "./agent-service.js";
import type { Monitoring } from "./monitoring.js";

export interface AgentNetworkLoadBalancerProps {
  readonly vpc: IVpc;
  readonly deletionProtection: boolean;
  /** The ports agents connect to, each a TCP listener passing connections through to the agent service. */
  readonly ports: readonly number[];
  /** The agent service, terminating mutual TLS itself (AgentServiceProps.tls). */
  readonly service: AgentService;
}

/**
 * The agent service behind a Network Load Balancer that passes agents' TCP through: the service terminates mutual
 * TLS with the same truststore an ALB would use, reads the client certificate from its handshake and serves
 * everything the agent API serves, debug bundles and asset downloads streamed. An NLB prices connections kept
 * alive lower than an ALB under mutual TLS, which is what a fleet of MiNiFi Java agents holds; agents that open a
 * connection per request gain nothing, as the tasks then pay for every handshake.
 */
export class AgentNetworkLoadBalancer extends Construct implements AgentIngress {
  readonly dnsTarget: string;
  private readonly loadBalancer: NetworkLoadBalancer;

  constructor(scope: Construct, id: string, props: AgentNetworkLoadBalancerProps) {
    super(scope, id);
    const securityGroup = new SecurityGroup(this, "SecurityGroup", {
      vpc: props.vpc,
      description: "Agent load balancer: agents mutual TLS in on the agent ports, the agent service out",
      allowAllOutbound: false,
    });
    for (const port of props.ports)
      securityGroup.addIngressRule(Peer.anyIpv4(), Port.tcp(port), `agents mutual TLS on ${port}`);
    Validations.of(securityGroup).acknowledge({
      id: "AwsSolutions-EC23",
      reason:
        "Agents connect from anywhere on the internet; the agent service behind it admits only clients whose " +
        "certificate chains to the truststore, checked during the TLS handshake.",
    });
    this.loadBalancer = new NetworkLoadBalancer(this, "LoadBalancer", {
      vpc: props.vpc,
      internetFacing: true,
      vpcSubnets: { subnetType: SubnetType.PUBLIC },
      securityGroups: [securityGroup],
      deletionProtection: props.deletionProtection,
      crossZoneEnabled: true,
    });
    Validations.of(this.loadBalancer).acknowledge({
      id: "AwsSolutions-ELB2",
      reason:
        "A Network Load Balancer writes access logs for TLS listeners alone; these are TCP listeners passing " +
        "agents' TLS through, and the agent service logs and meters every request itself.",
    });
    this.dnsTarget = this.loadBalancer.loadBalancerDnsName;

    const targets = props.service.addNetworkTargetGroup("NetworkTargets", securityGroup);
    for (const port of props.ports)
      this.loadBalancer.addListener(port === 443 ? "Tls" : `Tls${port}`, {
        port,
        protocol: Protocol.TCP,
        defaultAction: NetworkListenerAction.forward([targets]),
      });
    props.service.servedByNetwork(targets);
  }

  watchedBy(monitoring: Monitoring): void {
    monitoring.watchNetworkIngress(this.loadBalancer);
  }
}

import { Match, type Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { AgentServiceSettings } from "../../functions/agent-service/settings.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { type SynthesizedBeacon, synthesized } from "./assembly.js";
import { beaconVariants } from "./variants.js";

let nlb: SynthesizedBeacon;
let fargate: SynthesizedBeacon;
let template: Template;

beforeAll(() => {
  nlb = synthesized("prodNlb");
  fargate = synthesized("prodFargate");
  template = nlb.statelessTemplate;
});

type Resource = { Properties: Record<string, unknown> };

const resourcesOf = (of: Template, type: string) =>
  Object.entries(of.findResources(type)) as [string, Resource][];

const secretArn = beaconVariants.prodNlb.context.agentServerCertificateSecretArn;

type Container = {
  Environment: { Name: string; Value: unknown }[];
  Secrets: { Name: string; ValueFrom: unknown }[];
  HealthCheck: { Command: string[] };
  PortMappings: { ContainerPort: number }[];
};

const container = () =>
  (
    (resourcesOf(template, "AWS::ECS::TaskDefinition")[0]?.[1].Properties.ContainerDefinitions ??
      []) as Container[]
  )[0] as Container;

describe("agentIngress=nlb: a Network Load Balancer passing TCP to the agent service", () => {
  it("listens with TCP on each agent port, internet-facing, forwarding every connection to the service's TLS port", () => {
    template.resourceCountIs("AWS::ElasticLoadBalancingV2::LoadBalancer", 1);
    template.hasResourceProperties("AWS::ElasticLoadBalancingV2::LoadBalancer", {
      Type: "network",
      Scheme: "internet-facing",
      SecurityGroups: [
        { "Fn::GetAtt": [Match.stringLikeRegexp("^AgentNetworkLoadBalancerSecurityGroup"), "GroupId"] },
      ],
    });
    const listeners = resourcesOf(template, "AWS::ElasticLoadBalancingV2::Listener").map(
      ([, listener]) => listener.Properties,
    );
    expect(listeners.map(({ Port, Protocol }) => [Port, Protocol])).toEqual([
      [443, "TCP"],
      [10090, "TCP"],
    ]);
    for (const listener of listeners)
      expect(listener.DefaultActions).toEqual([
        { Type: "forward", TargetGroupArn: { Ref: expect.stringMatching(/^AgentServiceNetworkTargets/) } },
      ]);
    // No listener rules, no ALB trust store: the service routes and verifies itself.
    template.resourceCountIs("AWS::ElasticLoadBalancingV2::ListenerRule", 0);
    template.resourceCountIs("AWS::ElasticLoadBalancingV2::TrustStore", 0);
  });

  it("health-checks the tasks in plain HTTP on their health port and drains them as behind the ALB", () => {
    const [[, targets]] = resourcesOf(template, "AWS::ElasticLoadBalancingV2::TargetGroup") as [
      [string, Resource],
    ];
    expect(targets.Properties).toMatchObject({
      TargetType: "ip",
      Protocol: "TCP",
      Port: AgentServiceSettings.port,
      HealthCheckProtocol: "HTTP",
      HealthCheckPort: String(AgentServiceSettings.healthPort),
      HealthCheckPath: AgentServiceSettings.healthPath,
      Matcher: { HttpCode: "200" },
      TargetGroupAttributes: expect.arrayContaining([
        { Key: "deregistration_delay.timeout_seconds", Value: "30" },
      ]),
    });
    expect(container().PortMappings.map(({ ContainerPort }) => ContainerPort)).toEqual([
      AgentServiceSettings.port,
      AgentServiceSettings.healthPort,
    ]);
    expect(container().HealthCheck.Command.join(" ")).toContain(
      `http://127.0.0.1:${AgentServiceSettings.healthPort}${AgentServiceSettings.healthPath}`,
    );
  });

  it("gives the service its server certificate from Secrets Manager and the trust store's CA bundle", () => {
    expect(container().Secrets).toEqual([
      { Name: EnvNames.agentServiceTlsCertificate, ValueFrom: `${secretArn}:certificatePem::` },
      { Name: EnvNames.agentServiceTlsKey, ValueFrom: `${secretArn}:privateKeyPem::` },
    ]);
    const environment = Object.fromEntries(container().Environment.map(({ Name, Value }) => [Name, Value]));
    expect(environment[EnvNames.agentServiceCaBundle]).toMatch(/^-----BEGIN CERTIFICATE-----/);
    // The key is read by the execution role when a task starts, never written into the template.
    expect(JSON.stringify(template.toJSON())).not.toContain("PRIVATE KEY");
    template.hasResourceProperties("AWS::IAM::Policy", {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: ["secretsmanager:DescribeSecret", "secretsmanager:GetSecretValue"],
            Resource: secretArn,
          }),
        ]),
      },
      Roles: [{ Ref: Match.stringLikeRegexp("^AgentServiceTaskExecutionRole") }],
    });
  });

  it("admits agents on the agent ports to the balancer, and the balancer alone to the tasks' TLS and health ports", () => {
    const balancerGroup = resourcesOf(template, "AWS::EC2::SecurityGroup").find(([id]) =>
      id.startsWith("AgentNetworkLoadBalancerSecurityGroup"),
    )?.[1];
    expect(balancerGroup?.Properties.SecurityGroupIngress).toEqual([
      expect.objectContaining({ CidrIp: "0.0.0.0/0", FromPort: 443, ToPort: 443 }),
      expect.objectContaining({ CidrIp: "0.0.0.0/0", FromPort: 10090, ToPort: 10090 }),
    ]);
    const serviceIngress = resourcesOf(template, "AWS::EC2::SecurityGroupIngress")
      .map(([, rule]) => rule.Properties)
      .filter((rule) =>
        (rule.GroupId as { "Fn::GetAtt": string[] })["Fn::GetAtt"]?.[0]?.startsWith(
          "AgentServiceSecurityGroup",
        ),
      );
    expect(serviceIngress.map(({ FromPort }) => FromPort).sort()).toEqual([
      AgentServiceSettings.port,
      AgentServiceSettings.healthPort,
    ]);
    for (const rule of serviceIngress)
      expect(rule.SourceSecurityGroupId).toEqual({
        "Fn::GetAtt": [expect.stringMatching(/^AgentNetworkLoadBalancerSecurityGroup/), "GroupId"],
      });
  });

  it("alarms on unhealthy tasks and TCP resets where the ALB alarms on 5xx and latency, the degradation alarms unchanged", () => {
    const alarms = resourcesOf(template, "AWS::CloudWatch::Alarm").map(([, alarm]) => alarm.Properties);
    const names = (of: Record<string, unknown>[]) => of.map((alarm) => alarm.MetricName).filter(Boolean);
    expect(names(alarms)).toEqual(
      expect.arrayContaining(["UnHealthyHostCount", "TCP_ELB_Reset_Count", "TCP_Target_Reset_Count"]),
    );
    for (const alarm of alarms.filter((properties) => String(properties.MetricName).startsWith("TCP_")))
      expect(alarm).toMatchObject({ Namespace: "AWS/NetworkELB", Threshold: 1_000 });
    // Nothing an NLB does not measure: no HTTP codes, no response time.
    expect(JSON.stringify(alarms)).not.toMatch(/HTTPCode_|TargetResponseTime|AWS\/ApplicationELB/);
    const fargateAlarms = resourcesOf(fargate.statelessTemplate, "AWS::CloudWatch::Alarm").map(
      ([, alarm]) => alarm.Properties,
    );
    const degradations = (of: Record<string, unknown>[]) =>
      of
        .filter((alarm) => alarm.Namespace === "Beacon")
        .map((alarm) => alarm.MetricName)
        .sort();
    expect(degradations(alarms)).toEqual(degradations(fargateAlarms));
    // The ALB's 5xx rate, p99 latency and its tasks' 5xx give way to unhealthy tasks and the two resets.
    expect(alarms).toHaveLength(fargateAlarms.length);
  });

  it("scales the tasks on CPU alone: an NLB counts no requests", () => {
    template.hasResourceProperties("AWS::ApplicationAutoScaling::ScalingPolicy", {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({
        PredefinedMetricSpecification: { PredefinedMetricType: "ECSServiceAverageCPUUtilization" },
      }),
    });
    template.resourceCountIs("AWS::ApplicationAutoScaling::ScalingPolicy", 1);
  });

  it("puts the balancer in public subnets and reaches ECR and CloudWatch Logs through endpoints, as behind the ALB", () => {
    const endpoints = (of: SynthesizedBeacon) =>
      resourcesOf(of.statefulTemplate, "AWS::EC2::VPCEndpoint")
        .map(([id]) => id.replace(/[0-9A-F]{8}$/, ""))
        .sort();
    expect(endpoints(nlb)).toEqual(endpoints(fargate));
    nlb.statefulTemplate.hasResourceProperties("AWS::EC2::Subnet", { MapPublicIpOnLaunch: true });
  });
});

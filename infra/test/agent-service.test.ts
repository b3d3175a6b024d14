import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Match, type Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { AgentServiceSettings } from "../../functions/agent-service/settings.js";
import { DEFAULT_HEARTBEAT_INTERVAL_SECONDS } from "../../functions/core/agents/status.js";
import { defaultDeployment } from "../../scripts/capacity/inputs.js";
import { requestsPerTaskPerMinute, targetCpuPercent } from "../lib/agent-service.js";
import { imageDirectoryOf, type SynthesizedBeacon, synthesized } from "./assembly.js";

let prod: SynthesizedBeacon;
let prodAlb: SynthesizedBeacon;
let fargate: SynthesizedBeacon;

beforeAll(() => {
  prod = synthesized("prod");
  prodAlb = synthesized("prodAlb");
  fargate = synthesized("prodFargate");
});

type Resource = { Properties: Record<string, unknown> };
type Statement = { Action: string | string[]; Resource: unknown };

const byPrefix = (template: Template, type: string, prefix: string): [string, Resource][] =>
  Object.entries(template.findResources(type)).filter(([logicalId]) => logicalId.startsWith(prefix)) as [
    string,
    Resource,
  ][];

function onlyOf(template: Template, type: string, prefix: string): Resource {
  const found = byPrefix(template, type, prefix);
  expect(found.map(([logicalId]) => logicalId)).toHaveLength(1);
  return (found[0] as [string, Resource])[1];
}

type Container = {
  Environment: { Name: string; Value: unknown }[];
  Image: unknown;
  HealthCheck: { Command: string[] };
  StopTimeout: number;
  LogConfiguration: { LogDriver: string; Options: Record<string, unknown> };
  PortMappings: { ContainerPort: number }[];
  ReadonlyRootFilesystem: boolean;
};

const containerOf = (template: Template, prefix: string) =>
  (
    onlyOf(template, "AWS::ECS::TaskDefinition", prefix).Properties.ContainerDefinitions as Container[]
  )[0] as Container;

const beaconEnvironment = (variables: Record<string, unknown>) =>
  Object.keys(variables)
    .filter((name) => name.startsWith("BEACON_"))
    .sort();

/** The actions a role's policies grant, each with the resources it is granted on. */
function grantsOf(template: Template, rolePrefix: string): string[] {
  const policies = Object.values(template.findResources("AWS::IAM::Policy")).filter((policy) =>
    (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref.startsWith(rolePrefix)),
  );
  return (
    policies
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[])
      .flatMap((statement) =>
        [statement.Action].flat().map((action) => `${action} ${JSON.stringify(statement.Resource)}`),
      )
      // Lambda's own: attaching to the VPC, writing its log group, X-Ray when tracing is on.
      .filter((grant) => !/^(ec2|logs|xray):/.test(grant))
      .sort()
  );
}

describe("agentCompute=fargate: the agent service", () => {
  it("runs arm64 tasks of the size the capacity model prices, in a cluster with Container Insights", () => {
    const template = fargate.statelessTemplate;
    template.hasResourceProperties("AWS::ECS::Cluster", {
      ClusterSettings: [{ Name: "containerInsights", Value: "enabled" }],
    });
    const task = onlyOf(template, "AWS::ECS::TaskDefinition", "AgentServiceTask");
    expect(task.Properties).toMatchObject({
      Cpu: String(defaultDeployment.fargateTaskVcpu * 1024),
      Memory: String(defaultDeployment.fargateTaskMemoryGb * 1024),
      RequiresCompatibilities: ["FARGATE"],
      NetworkMode: "awsvpc",
      RuntimePlatform: { CpuArchitecture: "ARM64", OperatingSystemFamily: "LINUX" },
    });
    expect(targetCpuPercent).toBe(defaultDeployment.fargateTargetCpuUtilisation * 100);
  });

  it("replaces the agent-api function, with the environment and grants of one that takes debug bundles (the HTTP API's)", () => {
    const functionId = /^AgentApiFunction/;
    expect(
      Object.keys(fargate.statelessTemplate.findResources("AWS::Lambda::Function")).filter((id) =>
        functionId.test(id),
      ),
    ).toEqual([]);
    const container = containerOf(fargate.statelessTemplate, "AgentServiceTask");
    const serviceEnvironment = Object.fromEntries(
      container.Environment.map(({ Name, Value }) => [Name, Value]),
    );
    const [[, agentApi]] = byPrefix(prod.statelessTemplate, "AWS::Lambda::Function", "AgentApiFunction") as [
      [string, Resource],
    ];
    const functionEnvironment = (agentApi.Properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
    expect(beaconEnvironment(serviceEnvironment)).toEqual(beaconEnvironment(functionEnvironment));
    expect(serviceEnvironment).toMatchObject({
      POWERTOOLS_SERVICE_NAME: functionEnvironment.POWERTOOLS_SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: "Beacon",
    });
    const normalise = (grants: string[]) =>
      grants.map((grant) => grant.replace(/AgentApi(Function)?|AgentService(Task)?/g, "<agent api>"));
    expect(normalise(grantsOf(fargate.statelessTemplate, "AgentServiceTaskTaskRole"))).toEqual(
      normalise(grantsOf(prod.statelessTemplate, "AgentApiRole")),
    );
  });

  it("is the load balancer's default action, health-checked, drained and stopped within the server's own times", () => {
    const template = fargate.statelessTemplate;
    template.hasResourceProperties("AWS::ElasticLoadBalancingV2::Listener", {
      DefaultActions: [
        { Type: "forward", TargetGroupArn: { Ref: Match.stringLikeRegexp("^AgentServiceTargets") } },
      ],
    });
    // Debug bundles' uploads and assets' downloads go to the same tasks in a target group of their own.
    const rules = Object.values(template.findResources("AWS::ElasticLoadBalancingV2::ListenerRule"));
    expect(rules.map((rule) => rule.Properties.Conditions[0].PathPatternConfig.Values).sort()).toEqual([
      ["/c2/api/assets/*/content"],
      ["/c2/debug-bundles/*"],
    ]);
    for (const rule of rules)
      expect(rule.Properties.Actions).toEqual([
        {
          Type: "forward",
          TargetGroupArn: { Ref: expect.stringMatching(/^AgentServiceDebugBundleTargets/) },
        },
      ]);
    expect(
      (
        onlyOf(template, "AWS::ECS::Service", "AgentService").Properties.LoadBalancers as {
          TargetGroupArn: { Ref: string };
        }[]
      ).map(({ TargetGroupArn }) => TargetGroupArn.Ref.replace(/[0-9A-F]{8}$/, "")),
    ).toEqual(["AgentServiceTargets", "AgentServiceDebugBundleTargets"]);
    template.hasResourceProperties("AWS::ElasticLoadBalancingV2::LoadBalancer", {
      LoadBalancerAttributes: Match.arrayWith([
        {
          Key: "idle_timeout.timeout_seconds",
          Value: String(AgentServiceSettings.loadBalancerIdleTimeoutSeconds),
        },
      ]),
    });
    expect(AgentServiceSettings.keepAliveTimeoutSeconds).toBeGreaterThan(
      AgentServiceSettings.loadBalancerIdleTimeoutSeconds,
    );
    // A MiNiFi Java agent heartbeating at the default interval finds its kept-alive connection still open.
    expect(AgentServiceSettings.loadBalancerIdleTimeoutSeconds).toBeGreaterThan(
      DEFAULT_HEARTBEAT_INTERVAL_SECONDS,
    );
    const targets = onlyOf(template, "AWS::ElasticLoadBalancingV2::TargetGroup", "AgentServiceTargets");
    expect(targets.Properties).toMatchObject({
      TargetType: "ip",
      Protocol: "HTTP",
      Port: AgentServiceSettings.port,
      HealthCheckPath: AgentServiceSettings.healthPath,
      Matcher: { HttpCode: "200" },
      TargetGroupAttributes: expect.arrayContaining([
        { Key: "deregistration_delay.timeout_seconds", Value: "30" },
      ]),
    });
    const container = containerOf(template, "AgentServiceTask");
    expect(container).toMatchObject({
      PortMappings: [expect.objectContaining({ ContainerPort: AgentServiceSettings.port })],
      StopTimeout: AgentServiceSettings.stopTimeoutSeconds,
      ReadonlyRootFilesystem: true,
      LogConfiguration: { LogDriver: "awslogs", Options: expect.objectContaining({ mode: "blocking" }) },
    });
    expect(container.HealthCheck.Command.join(" ")).toContain(
      `http://127.0.0.1:${AgentServiceSettings.port}${AgentServiceSettings.healthPath}`,
    );
    // In flight requests finish within the stop timeout.
    expect(AgentServiceSettings.drainSeconds).toBeLessThan(AgentServiceSettings.stopTimeoutSeconds);
  });

  it("rolls a failed deployment back and runs in the private subnets, reachable from the load balancer alone", () => {
    const template = fargate.statelessTemplate;
    const service = onlyOf(template, "AWS::ECS::Service", "AgentService");
    expect(service.Properties).toMatchObject({
      LaunchType: "FARGATE",
      DeploymentConfiguration: {
        DeploymentCircuitBreaker: { Enable: true, Rollback: true },
        MinimumHealthyPercent: 100,
        MaximumPercent: 200,
      },
      NetworkConfiguration: { AwsvpcConfiguration: expect.objectContaining({ AssignPublicIp: "DISABLED" }) },
    });
    const ingress = Object.values(template.findResources("AWS::EC2::SecurityGroupIngress")).filter((rule) =>
      (rule.Properties.GroupId as { "Fn::GetAtt": string[] })["Fn::GetAtt"]?.[0]?.startsWith(
        "AgentServiceSecurityGroup",
      ),
    );
    expect(ingress.map((rule) => rule.Properties)).toEqual([
      expect.objectContaining({
        FromPort: AgentServiceSettings.port,
        ToPort: AgentServiceSettings.port,
        SourceSecurityGroupId: { "Fn::GetAtt": [expect.stringMatching(/^AgentLoadBalancer/), "GroupId"] },
      }),
    ]);
    onlyOf(template, "AWS::EC2::SecurityGroup", "AgentServiceSecurityGroup");
    expect(
      (onlyOf(template, "AWS::EC2::SecurityGroup", "AgentServiceSecurityGroup").Properties
        .SecurityGroupIngress ?? []) as unknown[],
    ).toEqual([]);
  });

  it("scales between the tasks given on CPU and on requests per task", () => {
    const template = fargate.statelessTemplate;
    template.hasResourceProperties("AWS::ApplicationAutoScaling::ScalableTarget", {
      MinCapacity: defaultDeployment.fargateMinTasks,
      MaxCapacity: 40,
      ScalableDimension: "ecs:service:DesiredCount",
    });
    template.hasResourceProperties("AWS::ApplicationAutoScaling::ScalingPolicy", {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({
        PredefinedMetricSpecification: { PredefinedMetricType: "ECSServiceAverageCPUUtilization" },
        TargetValue: targetCpuPercent,
      }),
    });
    template.hasResourceProperties("AWS::ApplicationAutoScaling::ScalingPolicy", {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({
        PredefinedMetricSpecification: Match.objectLike({ PredefinedMetricType: "ALBRequestCountPerTarget" }),
        TargetValue: requestsPerTaskPerMinute,
      }),
    });
  });

  it("alarms as the function did: the same degradations by the same service dimension, and its 5xx, CPU and memory", () => {
    const template = fargate.statelessTemplate;
    // The function's errors and throttles give way to the service's 5xx, CPU and memory.
    template.resourceCountIs("AWS::CloudWatch::Alarm", 47);
    for (const metricName of ["CPUUtilization", "MemoryUtilization"])
      template.hasResourceProperties("AWS::CloudWatch::Alarm", {
        Namespace: "AWS/ECS",
        MetricName: metricName,
        Threshold: 85,
      });
    template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Namespace: "AWS/ApplicationELB",
      MetricName: "HTTPCode_Target_5XX_Count",
      Dimensions: Match.arrayWith([Match.objectLike({ Name: "TargetGroup" })]),
    });
    for (const counter of [
      "CacheFallbacks",
      "StreamFailures",
      "EventsLost",
      "HeartbeatsFailed",
      "OperationResultsLost",
    ])
      template.hasResourceProperties("AWS::CloudWatch::Alarm", {
        MetricName: counter,
        Dimensions: [{ Name: "service", Value: "agent-api-prod" }],
      });
  });

  it("is built from the repository's Dockerfile over the esbuild bundle of functions/agent-service, staged without Docker", () => {
    const context = imageDirectoryOf(fargate, "AgentService");
    const images = Object.values(
      JSON.parse(
        readFileSync(join(fargate.assembly.directory, `${fargate.stateless.id}.assets.json`), "utf8"),
      ).dockerImages as Record<string, { source: { platform: string } }>,
    );
    expect(images.map(({ source }) => source.platform)).toEqual(["linux/arm64"]);
    expect(readFileSync(join(context, "Dockerfile"), "utf8")).toContain(
      'CMD ["node", "--enable-source-maps", "main.mjs"]',
    );
    const bundle = readFileSync(join(context, "main.mjs"), "utf8");
    expect(bundle.startsWith("import { createRequire }")).toBe(true);
    expect(bundle).toContain("agent service: request failed");
  });
});

describe("agentCompute=lambda behind the load balancer: the debug bundles' service", () => {
  it("is one always-on task of Fargate's smallest size, scaling to two", () => {
    const template = prodAlb.statelessTemplate;
    expect(onlyOf(template, "AWS::ECS::TaskDefinition", "DebugBundleServiceTask").Properties).toMatchObject({
      // As the capacity model prices it for ALB + Lambda.
      Cpu: String(defaultDeployment.debugBundleTaskVcpu * 1024),
      Memory: String(defaultDeployment.debugBundleTaskMemoryGb * 1024),
      RuntimePlatform: { CpuArchitecture: "ARM64", OperatingSystemFamily: "LINUX" },
    });
    template.hasResourceProperties("AWS::ApplicationAutoScaling::ScalableTarget", {
      MinCapacity: 1,
      MaxCapacity: 2,
    });
    // Its own degradations are not the agent API's: its 5xx, CPU and memory alone.
    expect(
      Object.keys(template.findResources("AWS::CloudWatch::Alarm")).filter((id) =>
        id.includes("DebugBundleService"),
      ),
    ).toHaveLength(3);
  });
});

type Metric = {
  MetricName: string;
  Dimensions: { Name: string; Value: { "Fn::GetAtt": [string, string] } }[];
};

describe("behind the load balancer, either compute", () => {
  /** The logical ids of the target groups the agent p99 latency alarm reads. */
  function latencyTargetGroupsOf(template: Template): string[] {
    const alarms = Object.values(template.findResources("AWS::CloudWatch::Alarm")) as Resource[];
    const metrics = alarms
      .flatMap((alarm) => (alarm.Properties.Metrics ?? []) as { MetricStat?: Record<string, unknown> }[])
      .flatMap(({ MetricStat }) => (MetricStat ? [MetricStat.Metric as Metric] : []))
      .filter((metric) => metric.MetricName === "TargetResponseTime");
    expect(metrics.length).toBeGreaterThan(0);
    return [
      ...new Set(
        metrics.flatMap((metric) =>
          metric.Dimensions.filter(({ Name }) => Name === "TargetGroup").map(
            ({ Value }) => Value["Fn::GetAtt"][0],
          ),
        ),
      ),
    ];
  }

  it("alarms on the agent API's p99 latency alone, not on debug bundles' uploads, which take seconds", () => {
    const lambdaTargets = latencyTargetGroupsOf(prodAlb.statelessTemplate);
    // One target group of the function, which every listener forwards to.
    expect(lambdaTargets).toEqual([expect.stringMatching(/^AgentLoadBalancerAgentApiTargets/)]);
    expect(
      onlyOf(
        prodAlb.statelessTemplate,
        "AWS::ElasticLoadBalancingV2::TargetGroup",
        lambdaTargets[0] as string,
      ).Properties,
    ).toMatchObject({ TargetType: "lambda" });
    expect(latencyTargetGroupsOf(fargate.statelessTemplate)).toEqual([
      expect.stringMatching(/^AgentServiceTargets/),
    ]);
  });
});

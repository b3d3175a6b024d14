import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Duration, Validations } from "aws-cdk-lib";
import { type IConnectable, type IPeer, Port, SecurityGroup } from "aws-cdk-lib/aws-ec2";
import { Platform } from "aws-cdk-lib/aws-ecr-assets";
import {
  AwsLogDriverMode,
  Cluster,
  ContainerImage,
  ContainerInsights,
  CpuArchitecture,
  FargateService,
  FargateTaskDefinition,
  LogDrivers,
  OperatingSystemFamily,
  type ScalableTaskCount,
  Secret,
} from "aws-cdk-lib/aws-ecs";
import {
  ApplicationProtocol,
  ApplicationTargetGroup,
  NetworkTargetGroup,
  Protocol,
  TargetType,
} from "aws-cdk-lib/aws-elasticloadbalancingv2";
import type { IGrantable } from "aws-cdk-lib/aws-iam";
import { LogGroup } from "aws-cdk-lib/aws-logs";
import type { ISecret } from "aws-cdk-lib/aws-secretsmanager";
import type { Construct } from "constructs";
import { buildSync } from "esbuild";
import { AgentServiceSettings } from "../../functions/agent-service/settings.js";
import { type EnvName, EnvNames } from "../../functions/shared/env-names.js";
import { BeaconWorkload, beaconEsbuildOptions, type FunctionPlatform } from "./beacon-function.js";
import type { AgentServiceTasks } from "./config.js";
import { type Monitoring, metricsNamespace } from "./monitoring.js";
import { repositoryRoot } from "./paths.js";
import { privateSubnets } from "./stateful-stack.js";

/** A task's size, as Fargate sells it: vCPU in 1/1024ths, memory in MiB. */
export interface AgentServiceSize {
  readonly cpu: number;
  readonly memoryMiB: number;
}

/**
 * The agent service's size for `agentCompute=fargate`, as `npm run capacity` prices it (scripts/capacity/inputs.ts,
 * fargateTaskVcpu and fargateTaskMemoryGb): one vCPU and 2 GB, arm64.
 */
export const agentApiTaskSize: AgentServiceSize = { cpu: 1024, memoryMiB: 2048 };
/** Fargate's smallest task: the debug bundles' service streams uploads to S3 and holds little. */
export const smallestTaskSize: AgentServiceSize = { cpu: 256, memoryMiB: 512 };
/** The CPU use the service scales out at, as the capacity model assumes (fargateTargetCpuUtilisation). */
export const targetCpuPercent = 50;
/**
 * Requests a task takes a minute before the service scales out: about 250 a second, a third of a vCPU by the
 * capacity model's measured CPU per heartbeat, so that a fleet reconnecting at once scales the service out on its
 * requests before its CPU shows it.
 */
export const requestsPerTaskPerMinute = 15_000;

export interface AgentServiceProps {
  readonly platform: FunctionPlatform;
  /** Powertools service name: the `service` dimension the degradation alarms read. */
  readonly serviceName: string;
  readonly size: AgentServiceSize;
  readonly tasks: AgentServiceTasks;
  /** False for a service that does not serve the agent API (the debug bundles'): its degradations go unwatched. */
  readonly watchesDegradations: boolean;
  /** Set when the service terminates mutual TLS itself, behind a Network Load Balancer passing TCP through. */
  readonly tls?: AgentServiceTlsSources;
}

/** Where a service that terminates mutual TLS finds its server certificate and the CAs of its clients. */
export interface AgentServiceTlsSources {
  /** `{"certificatePem": "…", "privateKeyPem": "…"}`: handed to the container by ECS when a task starts. */
  readonly certificateSecret: ISecret;
  /** The load balancer trust store's bundle (AgentTrust.bundlePem), the same CAs the ALB would verify against. */
  readonly caBundlePem: string;
}

// A request is answered within the agent API's deadline; a debug bundle's upload may take longer.
const deregistrationDelay = Duration.seconds(AgentServiceSettings.drainSeconds + 10);

/** How either load balancer checks a task: its health path, every 10 s, two answers either way decide. */
const healthCheckOfTasks = {
  path: AgentServiceSettings.healthPath,
  healthyHttpCodes: "200",
  interval: Duration.seconds(10),
  timeout: Duration.seconds(5),
  healthyThresholdCount: 2,
  unhealthyThresholdCount: 2,
};

/**
 * functions/agent-service (the agent API's handler module in a long-running Node server) on ECS Fargate, arm64, in
 * the private subnets, behind the load balancer's target group: health-checked, drained before it stops, rolled
 * back when a deployment does not become healthy, and scaled on CPU and on requests per task.
 * Its image is built by Docker from functions/agent-service/Dockerfile over an esbuild bundle made at synthesis,
 * with the functions' bundling settings; synthesis only stages the two, Docker runs when the image is published.
 */
export class AgentService extends BeaconWorkload {
  readonly serviceName: string;
  readonly service: FargateService;
  protected readonly monitoring: Monitoring;
  protected readonly grantee: IGrantable;
  protected readonly connectable: IConnectable;
  private readonly setContainerEnvironment: (name: string, value: string) => void;
  private readonly scaling: ScalableTaskCount;
  private albTargets: ApplicationTargetGroup | undefined;

  constructor(scope: Construct, id: string, props: AgentServiceProps) {
    super(scope, id);
    const { platform } = props;
    this.serviceName = props.serviceName;
    this.monitoring = platform.monitoring;
    this.watchesDegradations = props.watchesDegradations;

    const cluster = new Cluster(this, "Cluster", {
      vpc: platform.vpc,
      containerInsightsV2: ContainerInsights.ENABLED,
    });
    const taskDefinition = new FargateTaskDefinition(this, "Task", {
      cpu: props.size.cpu,
      memoryLimitMiB: props.size.memoryMiB,
      runtimePlatform: {
        cpuArchitecture: CpuArchitecture.ARM64,
        operatingSystemFamily: OperatingSystemFamily.LINUX,
      },
    });
    const logGroup = new LogGroup(this, "Logs", {
      retention: platform.logRetention,
      removalPolicy: platform.removalPolicy,
    });
    const { tls } = props;
    // A service that terminates TLS answers its health check in plain HTTP on a port of its own.
    const healthPort = tls ? AgentServiceSettings.healthPort : AgentServiceSettings.port;
    const healthUrl = `http://127.0.0.1:${healthPort}${AgentServiceSettings.healthPath}`;
    const container = taskDefinition.addContainer("AgentService", {
      image: ContainerImage.fromAsset(stagedImage(), { platform: Platform.LINUX_ARM64 }),
      // Blocking: metrics are EMF lines on stdout, and a dropped line is a count the alarms never see.
      logging: LogDrivers.awsLogs({
        logGroup,
        streamPrefix: "agent-service",
        mode: AwsLogDriverMode.BLOCKING,
      }),
      environment: {
        POWERTOOLS_SERVICE_NAME: this.serviceName,
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
        POWERTOOLS_LOG_LEVEL: platform.logLevel,
        ...(tls ? { [EnvNames.agentServiceCaBundle]: tls.caBundlePem } : {}),
      },
      // Read by the execution role when a task starts: a new certificate reaches the tasks that start after it.
      ...(tls
        ? {
            secrets: {
              [EnvNames.agentServiceTlsCertificate]: Secret.fromSecretsManager(
                tls.certificateSecret,
                "certificatePem",
              ),
              [EnvNames.agentServiceTlsKey]: Secret.fromSecretsManager(
                tls.certificateSecret,
                "privateKeyPem",
              ),
            },
          }
        : {}),
      portMappings: [
        { containerPort: AgentServiceSettings.port },
        ...(tls ? [{ containerPort: AgentServiceSettings.healthPort }] : []),
      ],
      stopTimeout: Duration.seconds(AgentServiceSettings.stopTimeoutSeconds),
      readonlyRootFilesystem: true,
      healthCheck: {
        command: [
          "CMD",
          "node",
          "-e",
          `fetch(${JSON.stringify(healthUrl)}).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`,
        ],
        interval: Duration.seconds(15),
        startPeriod: Duration.seconds(30),
      },
    });
    this.setContainerEnvironment = (name, value) => container.addEnvironment(name, value);
    Validations.of(taskDefinition).acknowledge({
      id: "AwsSolutions-ECS2",
      reason:
        "The environment holds the names and endpoints of the table, stream, cache and bucket, the agent " +
        "domain's URL and, behind an NLB, the public CA bundle of agents' certificates, as the agent-api " +
        "function's does: no secret is among them (the server certificate's key comes from Secrets Manager).",
    });
    Validations.of(taskDefinition).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "ecr:GetAuthorizationToken, which the execution role needs to pull the image, is not scoped to a " +
        "resource ARN; every other action is granted on the resources it needs.",
    });

    const securityGroup = new SecurityGroup(this, "SecurityGroup", {
      vpc: platform.vpc,
      description: `${this.serviceName}: the load balancer in, AWS endpoints and the cache out`,
    });
    this.service = new FargateService(this, "Service", {
      cluster,
      taskDefinition,
      vpcSubnets: privateSubnets,
      securityGroups: [securityGroup],
      assignPublicIp: false,
      desiredCount: props.tasks.min,
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { enable: true, rollback: true },
    });
    this.grantee = taskDefinition.taskRole;
    this.connectable = this.service;

    this.scaling = this.service.autoScaleTaskCount({
      minCapacity: props.tasks.min,
      maxCapacity: props.tasks.max,
    });
    this.scaling.scaleOnCpuUtilization("Cpu", { targetUtilizationPercent: targetCpuPercent });
  }

  /** The target group an Application Load Balancer forwards the agent API to: made when first asked for. */
  get targetGroup(): ApplicationTargetGroup {
    this.albTargets ??= this.addTargetGroup("Targets");
    return this.albTargets;
  }

  /**
   * A target group of the service's tasks. Beside the agent API's, the debug bundles' uploads get one of their
   * own, so that the agent API's latency is measured without the seconds a 16 MiB upload takes.
   */
  addTargetGroup(id: string): ApplicationTargetGroup {
    return new ApplicationTargetGroup(this, id, {
      vpc: this.service.cluster.vpc,
      port: AgentServiceSettings.port,
      protocol: ApplicationProtocol.HTTP,
      targetType: TargetType.IP,
      targets: [this.service],
      deregistrationDelay,
      healthCheck: healthCheckOfTasks,
    });
  }

  /**
   * Scales on the load balancer's requests per task too, and alarms on the 5xx its tasks answer, which the
   * balancer counts: called once the target group is on the balancer's listener.
   */
  servedBy(): void {
    this.monitoring.watchService(this.node.id, this.service, this.targetGroup);
    this.scaling.scaleOnRequestCount("Requests", {
      requestsPerTarget: requestsPerTaskPerMinute,
      targetGroup: this.targetGroup,
    });
  }

  /**
   * The tasks as a Network Load Balancer's targets: TCP to the service's TLS port, passed through, health-checked
   * in plain HTTP on the health port; `from` (the load balancer's security group) may reach both.
   */
  addNetworkTargetGroup(id: string, from: IPeer): NetworkTargetGroup {
    for (const port of [AgentServiceSettings.port, AgentServiceSettings.healthPort])
      this.service.connections.allowFrom(from, Port.tcp(port), "the agent load balancer");
    const targetGroup = new NetworkTargetGroup(this, id, {
      vpc: this.service.cluster.vpc,
      port: AgentServiceSettings.port,
      protocol: Protocol.TCP,
      targetType: TargetType.IP,
      targets: [
        this.service.loadBalancerTarget({
          containerName: "AgentService",
          containerPort: AgentServiceSettings.port,
        }),
      ],
      deregistrationDelay,
      healthCheck: {
        ...healthCheckOfTasks,
        protocol: Protocol.HTTP,
        port: String(AgentServiceSettings.healthPort),
      },
    });
    return targetGroup;
  }

  /** Alarms on its tasks as a Network Load Balancer sees them: called once the target group is on its listeners. */
  servedByNetwork(targetGroup: NetworkTargetGroup): void {
    this.monitoring.watchNetworkService(this.node.id, this.service, targetGroup);
  }

  protected setEnvironment(name: EnvName, value: string): void {
    this.setContainerEnvironment(name, value);
  }
}

/**
 * The image's build context: the Dockerfile and the esbuild bundle of functions/agent-service/main.ts, in a
 * folder of its own, which synthesis stages into the cloud assembly with a hash of its content.
 */
function stagedImage(): string {
  const serviceDir = join(repositoryRoot, "functions", "agent-service");
  const context = mkdtempSync(join(tmpdir(), "beacon-agent-service-"));
  buildSync({
    ...beaconEsbuildOptions,
    entryPoints: [join(serviceDir, "main.ts")],
    outfile: join(context, "main.mjs"),
    absWorkingDir: repositoryRoot,
    logLevel: "error",
  });
  copyFileSync(join(serviceDir, "Dockerfile"), join(context, "Dockerfile"));
  return context;
}

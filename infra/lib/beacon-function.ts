import { join } from "node:path";
import {
  AssetHashType,
  Aws,
  DockerImage,
  type Duration,
  Fn,
  type RemovalPolicy,
  Validations,
} from "aws-cdk-lib";
import type { ITableV2 } from "aws-cdk-lib/aws-dynamodb";
import { type IConnectable, type IVpc, SecurityGroup } from "aws-cdk-lib/aws-ec2";
import type { IEventBus } from "aws-cdk-lib/aws-events";
import { type IGrantable, PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import type { IStream } from "aws-cdk-lib/aws-kinesis";
import {
  ApplicationLogLevel,
  Architecture,
  Code,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  type SystemLogLevel,
  Tracing,
} from "aws-cdk-lib/aws-lambda";
import { type ILogGroup, LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import type { ISecret } from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";
import { type BuildOptions, buildSync } from "esbuild";
import { TableSchema } from "../../functions/adapters/dynamodb/table-schema.js";
import type { AgentTrust } from "../../functions/adapters/x509/trust.js";
import { ARCHIVE_PREFIX } from "../../functions/core/archive/layout.js";
import { ASSET_UPLOADS_PREFIX } from "../../functions/core/assets/model.js";
import { DEBUG_BUNDLES_PREFIX } from "../../functions/core/bundles/model.js";
import type { EventBufferBounds } from "../../functions/core/events/ports.js";
import type { StatementPricing } from "../../functions/core/history/statement.js";
import { RESULTS_PREFIX } from "../../functions/core/operations/results.js";
import { BeaconSecretPrefixes } from "../../functions/core/parameters/secret-refs.js";
import { type EnvName, EnvNames } from "../../functions/shared/env-names.js";
import type { BeaconCache } from "./cache.js";
import type { AgentDomain, LogLevel, StageName } from "./config.js";
import type { EventArchive } from "./event-archive.js";
import { type DegradationCounter, type Monitoring, metricsNamespace } from "./monitoring.js";
import { repositoryRoot } from "./paths.js";
import { type AssetBucket, privateSubnets } from "./stateful-stack.js";

/**
 * Item reads and writes. No Scan: Beacon reads by key and index only. The table's settings, streams and
 * backups stay out of the functions' reach.
 */
const tableDataActions = [
  "dynamodb:GetItem",
  "dynamodb:BatchGetItem",
  "dynamodb:Query",
  "dynamodb:ConditionCheckItem",
  "dynamodb:PutItem",
  "dynamodb:UpdateItem",
  "dynamodb:DeleteItem",
  "dynamodb:BatchWriteItem",
];

/**
 * Built-in modules a bundle takes through `process.getBuiltinModule` rather than an `import`. Node builds an
 * imported built-in's ES module by reading every export, and reading `http`'s loads undici (its WebSocket and
 * fetch classes): 20–40 ms of a cold start for `http`, `process` and `util` together, spent on names Beacon never
 * uses (docs/measurements.md, "Built-ins without their ES module facade"). Each maps, bare and `node:`-prefixed, to
 * a one-line CommonJS module under functions/runtime/builtins/. A built-in with subpaths (`fs/promises`) cannot be
 * mapped this way: esbuild maps a subpath under the alias too.
 */
const builtinsByRequire = ["http", "process", "util"] as const;

export const builtinAliases: Record<string, string> = Object.fromEntries(
  builtinsByRequire.flatMap((name) => {
    const shim = join(repositoryRoot, "functions", "runtime", "builtins", `${name}.cjs`);
    return [
      [name, shim],
      [`node:${name}`, shim],
    ];
  }),
);

/**
 * How Beacon bundles its code: a minified ES module for Node 22, with the SDK in it (the code runs the SDK
 * versions the tests ran against, not whatever the runtime ships) and built-ins aliased as above. The source
 * map is written beside each file and read offline, by `npm run stack`, never by the code: Node's
 * --enable-source-maps reads and indexes a whole map at every cold start, 16 to 50 ms of CPU
 * (docs/measurements.md, "Source maps read offline").
 */
export const beaconEsbuildOptions = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  mainFields: ["module", "main"],
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  // CommonJS dependencies (ioredis) call require(), which an ES module must create for them.
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  alias: builtinAliases,
} satisfies BuildOptions;

/**
 * A function's code package as esbuild writes it into `outdir`: `index.mjs`, which Lambda loads at every cold
 * start, and under `chunks/` the code reached only through a dynamic `import()` (the X.509 library, YAML, the
 * clients a route uses rarely), which Node reads and compiles only when the import runs. V8 compiles every byte
 * of a module it loads, so code a request does not reach costs a cold start nothing only out of `index.mjs`
 * (docs/measurements.md, "Code a cold start does not reach, in chunks"). Exported so that
 * `npm run bench:cold-start` measures the very packages a deployment ships.
 */
export const functionBuildOptions = (entry: string, outdir: string) =>
  ({
    ...beaconEsbuildOptions,
    entryPoints: { index: entry },
    outdir,
    splitting: true,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
  }) satisfies BuildOptions;

/** A role for a Lambda function that may write to its own log group and nowhere else (no managed policy). */
export function lambdaRoleLoggingTo(scope: Construct, id: string, logGroup: ILogGroup): Role {
  const role = new Role(scope, id, { assumedBy: new ServicePrincipal("lambda.amazonaws.com") });
  logGroup.grantWrite(role);
  return role;
}

/** What every Beacon function of a stage shares; built once by the stack that holds the functions. */
export interface FunctionPlatform {
  readonly stage: StageName;
  readonly vpc: IVpc;
  readonly monitoring: Monitoring;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  readonly logLevel: LogLevel;
  readonly platformLogLevel: SystemLogLevel;
  readonly tracing: boolean;
}

export interface BeaconFunctionProps {
  readonly platform: FunctionPlatform;
  /** Folder under `functions/` whose `handler.ts` exports `handler`. */
  readonly entry: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  /** Caps the function's concurrent runs; unset, it shares the account's unreserved pool with no cap. */
  readonly reservedConcurrency?: number;
  /**
   * `private` (the default): in the VPC's private subnets, which reach AWS services through endpoints and
   * nothing else. `internet`: outside the VPC, for functions that post to tenants' receivers on the internet
   * (there is no NAT gateway); such a function cannot reach the cache or anything in the VPC.
   */
  readonly network?: "private" | "internet";
}

/** What agents hand Beacon that the console serves, each under a prefix of the asset bucket of its own. */
export interface KeptForConsole {
  prefix: string;
  /** In words, for the grant's reason. */
  what: string;
  /** The variable that tells the putting side how many days the console serves it. */
  daysEnvName: EnvName;
}

export const KeptForConsole = {
  /** What DESCRIBE acknowledgements answered; the agent API puts them. */
  operationResults: {
    prefix: RESULTS_PREFIX,
    what: "a DESCRIBE's answer",
    daysEnvName: EnvNames.operationResultDays,
  },
  /** The debug bundles TRANSFER DEBUG's agents upload; the streaming bundle intake puts them. */
  debugBundles: {
    prefix: DEBUG_BUNDLES_PREFIX,
    what: "a debug bundle",
    daysEnvName: EnvNames.debugBundleDays,
  },
} as const satisfies Record<string, KeptForConsole>;

/**
 * What runs Beacon's code on AWS, a function or the agent service: each `bind*` call sets the variable the code
 * reads, grants exactly the access that goes with it and watches the counters that tell it degraded.
 */
export abstract class BeaconWorkload extends Construct {
  /** Powertools service name: the `service` dimension of the workload's metrics and a field of its logs. */
  abstract readonly serviceName: string;
  protected abstract readonly monitoring: Monitoring;
  /** Who is granted access: the function, or the service's task role. */
  protected abstract readonly grantee: IGrantable;
  /** What the cache's security group admits. */
  protected abstract readonly connectable: IConnectable;
  protected abstract setEnvironment(name: EnvName, value: string): void;
  /** False for a workload that runs the code but does not serve it (the debug bundles' service): no alarms. */
  protected watchesDegradations = true;

  private addToPolicy(statement: PolicyStatement): void {
    this.grantee.grantPrincipal.addToPrincipalPolicy(statement);
  }

  private watch(counter: DegradationCounter): void {
    if (this.watchesDegradations) this.monitoring.watchDegradation(this.node.id, this.serviceName, counter);
  }

  /** Reads and writes items of the table and queries its indexes, each named: no wildcard, no table management. */
  bindTable(table: ITableV2): void {
    this.setEnvironment(EnvNames.tableName, table.tableName);
    const indexArns = Object.values(TableSchema.indexes).map(
      (index) => `${table.tableArn}/index/${index.indexName}`,
    );
    this.addToPolicy(
      new PolicyStatement({ actions: tableDataActions, resources: [table.tableArn, ...indexArns] }),
    );
  }

  /** Puts records on the stream; failed puts, and the events they lost, are counted and alarmed on. */
  bindStream(stream: IStream): void {
    this.setEnvironment(EnvNames.streamName, stream.streamName);
    stream.grantWrite(this.grantee);
    this.watch("StreamFailures");
    this.watch("EventsLost");
  }

  /**
   * For a function that keeps what the stream refuses (table, stream and cache bound): the cache's buffer gets
   * its bounds, and events held in it or, failing it, in the outbox, and staged events whose outbox entries stayed,
   * are counted and alarmed on.
   */
  keepUnpublishedEvents(bounds: EventBufferBounds): void {
    this.setEnvironment(EnvNames.eventBufferMaxEvents, String(bounds.maxEvents));
    this.setEnvironment(EnvNames.eventBufferMaxEventsPerTenant, String(bounds.maxEventsPerTenant));
    this.watch("OutboxClearFailures");
    this.watch("EventsHeld");
    this.watch("EventsHeldInOutbox");
  }

  /**
   * The agent API's: DESCRIBE answers it could not keep, each alarmed on, and heartbeats answered with no
   * operations after an internal error.
   */
  watchAgentApiLosses(): void {
    if (!this.watchesDegradations) return;
    this.monitoring.watchLosses(this.node.id, this.serviceName, "OperationResultsLost");
    this.watch("HeartbeatsFailed");
  }

  /** Opens the cache's security group to this function; fallbacks to the table are counted and alarmed on. */
  bindCache(cache: BeaconCache): void {
    this.setEnvironment(EnvNames.redisUrl, cache.url);
    // The rule lives beside the function: in the cache's stack it would make the two stacks depend on each other.
    const cacheSecurityGroup = SecurityGroup.fromSecurityGroupId(
      this,
      "CacheSecurityGroup",
      cache.securityGroup.securityGroupId,
    );
    cacheSecurityGroup.connections.allowFrom(
      this.connectable,
      cache.ports,
      `${this.serviceName} to the cache`,
    );
    this.watch("CacheFallbacks");
  }

  /**
   * Works with tenants' assets in the bucket, under `<tenant>/assets/`: the console stores and deletes them
   * (`write`), the agent API serves them to agents (`read`), with the bucket's listing so that a missing
   * asset answers NoSuchKey (a 404) rather than S3's AccessDenied. The console also stages uploads in parts
   * under `asset-uploads/<tenant>/`: it starts, lists, completes and aborts their multipart uploads, presigns
   * their parts (a part URL acts with the console's role), reads them whole to check them, and copies them.
   */
  bindAssetBucket({ bucket, arnExportName }: AssetBucket, access: "read" | "write"): void {
    this.setEnvironment(EnvNames.assetBucket, bucket.bucketName);
    const tenantsAssets = "/*/assets/*";
    const assets = `${Fn.importValue(arnExportName)}${tenantsAssets}`;
    Validations.of(this).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${arnExportName}${tenantsAssets}]`,
      reason:
        "The first segment of an asset's key is its tenant, and tenants come and go with no deployment: the " +
        "grant covers every tenant's assets and nothing else in the bucket; the code builds each key from the " +
        "caller's own tenant.",
    });
    if (access === "write") {
      this.addToPolicy(
        new PolicyStatement({ actions: ["s3:PutObject", "s3:DeleteObject"], resources: [assets] }),
      );
      const stagedUploads = `/${ASSET_UPLOADS_PREFIX}/*`;
      Validations.of(this).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${arnExportName}${stagedUploads}]`,
        reason:
          "Uploads in parts are staged under their tenant and an upload id Beacon makes: the grant covers the " +
          "staging prefix and nothing else; the code builds each key from the caller's own tenant.",
      });
      this.addToPolicy(
        new PolicyStatement({
          actions: [
            "s3:PutObject",
            "s3:GetObject",
            "s3:DeleteObject",
            "s3:AbortMultipartUpload",
            "s3:ListMultipartUploadParts",
          ],
          resources: [`${Fn.importValue(arnExportName)}${stagedUploads}`],
        }),
      );
    } else {
      this.addToPolicy(new PolicyStatement({ actions: ["s3:GetObject"], resources: [assets] }));
      this.addToPolicy(
        new PolicyStatement({ actions: ["s3:ListBucket"], resources: [Fn.importValue(arnExportName)] }),
      );
    }
  }

  /**
   * Works with what agents hand Beacon for the console, in the asset bucket under `kept.prefix` and nowhere else:
   * the side agents reach puts it (`put`: a multipart upload it may abort, so that a refused one leaves nothing),
   * kept `days` (the bucket's lifecycle deletes it after), and the console reads it (`read`), with the listing of
   * that prefix alone, so that an object the lifecycle deleted answers NoSuchKey rather than AccessDenied.
   */
  bindKeptForConsole(
    { bucket, arnExportName }: AssetBucket,
    kept: KeptForConsole,
    access: "put" | "read",
    days?: number,
  ): void {
    this.setEnvironment(EnvNames.assetBucket, bucket.bucketName);
    const objects = `/${kept.prefix}/*`;
    Validations.of(this).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${arnExportName}${objects}]`,
      reason:
        `A key of ${kept.what} holds its tenant and operation, both known only when the agent's request arrives: ` +
        "the grant covers its prefix and nothing else in the bucket; the code builds each key from the caller's " +
        "own tenant.",
    });
    const resources = [`${Fn.importValue(arnExportName)}${objects}`];
    if (access === "put") {
      if (days !== undefined) this.setEnvironment(kept.daysEnvName, String(days));
      this.addToPolicy(
        new PolicyStatement({ actions: ["s3:PutObject", "s3:AbortMultipartUpload"], resources }),
      );
      return;
    }
    this.addToPolicy(new PolicyStatement({ actions: ["s3:GetObject"], resources }));
    this.addToPolicy(
      new PolicyStatement({
        actions: ["s3:ListBucket"],
        resources: [Fn.importValue(arnExportName)],
        conditions: { StringLike: { "s3:prefix": `${kept.prefix}/*` } },
      }),
    );
  }

  /**
   * Works with the event archive's objects, under `events/` and nowhere else, and never deletes one: the stream
   * consumer writes them (`write`), so a redelivered batch can only write again what it wrote before, and both
   * it and the relays read them back (`read`, with the listing of that prefix alone) to tell whether the stream
   * carried an event already.
   */
  bindEventArchive({ bucket, arnExportName }: EventArchive, access: readonly ("write" | "read")[]): void {
    this.setEnvironment(EnvNames.archiveBucket, bucket.bucketName);
    const events = `/${ARCHIVE_PREFIX}/*`;
    Validations.of(this).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${arnExportName}${events}]`,
      reason:
        "The archive's keys start with the tenant and the day an event was recorded, both known only when it " +
        "arrives: the grant covers the archive's prefix and nothing else in the bucket, and never DeleteObject.",
    });
    const actions = [
      ...(access.includes("write") ? ["s3:PutObject"] : []),
      ...(access.includes("read") ? ["s3:GetObject"] : []),
    ];
    this.addToPolicy(
      new PolicyStatement({ actions, resources: [`${Fn.importValue(arnExportName)}${events}`] }),
    );
    if (access.includes("read"))
      this.addToPolicy(
        new PolicyStatement({
          actions: ["s3:ListBucket"],
          resources: [Fn.importValue(arnExportName)],
          conditions: { StringLike: { "s3:prefix": `${ARCHIVE_PREFIX}/*` } },
        }),
      );
  }

  /**
   * Puts every notification on the bus, and only there (events:PutEvents on its ARN); notifications it still
   * refuses after retries are counted and alarmed on.
   */
  bindNotificationBus(bus: IEventBus): void {
    this.setEnvironment(EnvNames.notificationBusName, bus.eventBusName);
    bus.grantPutEventsTo(this.grantee);
    this.watch("NotificationsRefusedByBus");
  }

  /** Reads the agent CA's secret (its certificate and signing key) to issue agent certificates. */
  bindAgentCa(secret: ISecret): void {
    this.setEnvironment(EnvNames.agentCaSecretArn, secret.secretArn);
    secret.grantRead(this.grantee);
  }

  /**
   * Which tenants each CA of the agents' truststore may speak for, read from the same CAs as the truststore,
   * so that a deployment changes both together.
   */
  bindAgentCaBindings(bindings: AgentTrust["bindings"]): void {
    this.setEnvironment(EnvNames.agentCaBindings, JSON.stringify(bindings));
  }

  /** Prices usage statements as the deployment's option, with the operator's unit prices over the model's. */
  bindUsagePricing(pricing: StatementPricing): void {
    this.setEnvironment(EnvNames.usagePricedOption, pricing.option);
    const overrides = Object.fromEntries(pricing.overridden.map((unit) => [unit, pricing.prices[unit]]));
    if (pricing.overridden.length > 0)
      this.setEnvironment(EnvNames.usageUnitPrices, JSON.stringify(overrides));
  }

  /**
   * Which of Beacon's CAs the agents' truststore holds, by fingerprint, from the same CA bundle: a certificate
   * a CA no longer there signed (retired after a rotation) is no longer listed valid nor announced as expiring.
   */
  bindTrustedCas(trust: AgentTrust): void {
    this.setEnvironment(EnvNames.trustedCaFingerprints, trust.beaconCaFingerprints.join(","));
  }

  /**
   * Writes the console's audit trail, kept `retentionDays` by the table's time to live; a record that could
   * not be written is alarmed on.
   */
  bindAuditTrail(retentionDays: number): void {
    this.setEnvironment(EnvNames.auditRetentionDays, String(retentionDays));
    this.monitoring.watchLosses(this.node.id, this.serviceName, "AuditWriteFailed");
  }

  /**
   * Writes each tenant's fleet series to CloudWatch every run, as Embedded Metric Format lines of its log, which
   * CloudWatch Logs turns into metrics of the `Beacon/Fleet` namespace with the Tenant and Class dimensions.
   */
  publishFleetMetrics(): void {
    this.setEnvironment(EnvNames.fleetMetricsToCloudWatch, "1");
  }

  /**
   * Has `tester` (the webhook dispatcher, outside the VPC) post subscriptions' tests: invokes it, and nothing
   * else, through the VPC's Lambda endpoint.
   */
  bindWebhookTester(tester: BeaconFunction): void {
    this.setEnvironment(EnvNames.webhookTesterFunction, tester.function.functionName);
    this.addToPolicy(
      new PolicyStatement({ actions: ["lambda:InvokeFunction"], resources: [tester.function.functionArn] }),
    );
  }

  /**
   * Reads the secrets sensitive parameters reference when agents download their flows: Secrets Manager secrets
   * named below `beacon/`, Parameter Store parameters below `/beacon/`, in Beacon's own account and region, and
   * nothing else of either. Each tenant's are below its own prefix (functions/core/parameters/secret-refs.ts),
   * which the code holds each download to. Secrets encrypted with the services' AWS managed keys need no KMS
   * grant; a customer managed key's policy must let this role decrypt through the service.
   */
  bindTenantSecrets(): void {
    const resources = {
      "secret names": `secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${BeaconSecretPrefixes.secretsManager}*`,
      "parameter names": `ssm:<AWS::Region>:<AWS::AccountId>:parameter${BeaconSecretPrefixes.parameterStore}*`,
    };
    for (const [store, resource] of Object.entries(resources))
      Validations.of(this).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:${resource}]`,
        reason:
          `Tenants' ${store} start with their tenant, and tenants come and go with no deployment: the grant covers ` +
          "Beacon's prefix and nothing else of the account's secrets; the code reads only references below the " +
          "caller's own tenant's prefix.",
      });
    const arn = (resource: string) =>
      `arn:${Aws.PARTITION}:${resource.replace("<AWS::Region>", Aws.REGION).replace("<AWS::AccountId>", Aws.ACCOUNT_ID)}`;
    this.addToPolicy(
      new PolicyStatement({
        actions: ["secretsmanager:GetSecretValue"],
        resources: [arn(resources["secret names"])],
      }),
    );
    this.addToPolicy(
      new PolicyStatement({ actions: ["ssm:GetParameter"], resources: [arn(resources["parameter names"])] }),
    );
  }

  /** Where agents reach the agent API: the flow downloads operations send agents to are URLs below it. */
  bindAgentDomain(domain: AgentDomain): void {
    this.setEnvironment(EnvNames.agentApiUrl, `https://${domain.domainName}`);
  }
}

/**
 * The one way Beacon deploys a function: Node 22 on arm64, ES modules built by the local esbuild, its own
 * log group, Powertools settings, placement in the private subnets, and alarms on errors and throttles.
 */
export class BeaconFunction extends BeaconWorkload {
  readonly function: LambdaFunction;
  readonly serviceName: string;
  protected readonly monitoring: Monitoring;
  protected readonly grantee: IGrantable;
  protected readonly connectable: IConnectable;

  constructor(scope: Construct, id: string, props: BeaconFunctionProps) {
    super(scope, id);
    const { platform } = props;
    this.monitoring = platform.monitoring;
    this.serviceName = `${props.entry}-${platform.stage}`;

    const logGroup = new LogGroup(this, "Logs", {
      retention: platform.logRetention,
      removalPolicy: platform.removalPolicy,
    });
    const role = lambdaRoleLoggingTo(this, "Role", logGroup);
    // Lambda attaches VPC functions through network interfaces it manages with the function's own role.
    role.addToPolicy(
      new PolicyStatement({
        actions: [
          "ec2:CreateNetworkInterface",
          "ec2:DescribeNetworkInterfaces",
          "ec2:DescribeSubnets",
          "ec2:DeleteNetworkInterface",
          "ec2:AssignPrivateIpAddresses",
          "ec2:UnassignPrivateIpAddresses",
        ],
        resources: ["*"],
      }),
    );
    Validations.of(role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "Only the EC2 network-interface actions Lambda needs to attach a VPC function (and, when tracing is " +
        "switched on, the X-Ray segment upload) are on *: these actions are not scoped to a resource ARN.",
    });

    const entryDirectory = join(repositoryRoot, "functions", props.entry);
    this.function = new LambdaFunction(this, "Function", {
      code: Code.fromAsset(entryDirectory, {
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          // Required by the type, never pulled: the local esbuild bundles, and a failure fails the synthesis
          // rather than falling back to a container (the CDK's NodejsFunction names such an image too).
          image: DockerImage.fromRegistry("dummy"),
          local: {
            tryBundle(outputDir) {
              buildSync({
                ...functionBuildOptions(join(entryDirectory, "handler.ts"), outputDir),
                absWorkingDir: repositoryRoot,
                logLevel: "error",
              });
              return true;
            },
          },
        },
      }),
      handler: "index.handler",
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      reservedConcurrentExecutions: props.reservedConcurrency,
      role,
      logGroup,
      // JSON format is what lets Lambda filter its own lines by level. Powertools writes to stdout itself: its
      // metric lines carry no level and always pass, its log lines are held to the level it applies anyway.
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel[platform.logLevel],
      systemLogLevelV2: platform.platformLogLevel,
      ...(props.network === "internet" ? {} : { vpc: platform.vpc, vpcSubnets: privateSubnets }),
      // Off by default: at fleet scale, X-Ray would cost more than the compute it traces.
      tracing: platform.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      environment: {
        POWERTOOLS_SERVICE_NAME: this.serviceName,
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
        POWERTOOLS_LOG_LEVEL: platform.logLevel,
      },
    });
    Validations.of(this.function).acknowledge({
      id: "AwsSolutions-L1",
      reason:
        "Beacon targets Node 22, the version its local stack and tests run on; moving to a newer runtime is " +
        "a deliberate upgrade made together with them.",
    });
    this.grantee = this.function;
    this.connectable = this.function;
    platform.monitoring.watchFunction(id, this.function);
  }

  protected setEnvironment(name: EnvName, value: string): void {
    this.function.addEnvironment(name, value);
  }
}

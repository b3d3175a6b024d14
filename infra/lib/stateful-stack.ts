import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from "aws-cdk-lib";
import { AttributeType, Billing, ProjectionType, TableV2 } from "aws-cdk-lib/aws-dynamodb";
import {
  FlowLogDestination,
  FlowLogTrafficType,
  GatewayVpcEndpointAwsService,
  InterfaceVpcEndpointAwsService,
  type SubnetConfiguration,
  type SubnetSelection,
  SubnetType,
  Vpc,
} from "aws-cdk-lib/aws-ec2";
import { EventBus } from "aws-cdk-lib/aws-events";
import { Stream, StreamEncryption, StreamMode } from "aws-cdk-lib/aws-kinesis";
import { LogGroup } from "aws-cdk-lib/aws-logs";
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  HttpMethods,
  ObjectOwnership,
} from "aws-cdk-lib/aws-s3";
import { type ISecret, Secret } from "aws-cdk-lib/aws-secretsmanager";
import type { Construct } from "constructs";
import { TableSchema } from "../../functions/adapters/dynamodb/table-schema.js";
import { NOTIFICATION_SOURCE } from "../../functions/adapters/eventbridge/notification-bus.js";
import { ASSET_UPLOADS_PREFIX } from "../../functions/core/assets/model.js";
import { DEBUG_BUNDLES_PREFIX } from "../../functions/core/bundles/model.js";
import { RESULTS_PREFIX } from "../../functions/core/operations/results.js";
import { BeaconCache } from "./cache.js";
import { type BeaconConfig, isLoadBalancer } from "./config.js";
import { ConsoleUsers } from "./console-users.js";
import { EventArchive } from "./event-archive.js";

/**
 * Where Beacon's functions, the cache and the interface endpoints live: no route out of the VPC, so every AWS
 * service a function calls needs an endpoint (infra/test/service-routes.test.ts checks that each has one).
 */
export const privateSubnets: SubnetSelection = { subnetType: SubnetType.PRIVATE_ISOLATED };

/** The assets bucket, with the name its ARN is exported under. */
export interface AssetBucket {
  readonly bucket: Bucket;
  readonly arnExportName: string;
}

/**
 * Days the notification bus's archive keeps what went on the bus, for a consumer to replay what it missed: at
 * about 1 KB a notification, a million of them are 1 GB archived ($0.10) and kept ($0.023 a month).
 */
const NOTIFICATION_ARCHIVE_DAYS = 30;

export interface StatefulStackProps extends StackProps {
  readonly config: BeaconConfig;
}

/**
 * What outlives a deployment: the registry table, the event stream and its archive, the notification bus (whose
 * rules are its consumers'), the cache, the tenants' assets, the network they sit in, the console's users and
 * Beacon's agent CA.
 */
export class StatefulStack extends Stack {
  readonly vpc: Vpc;
  readonly table: TableV2;
  readonly stream: Stream;
  readonly cache: BeaconCache;
  /** Tenants' assets, each under `<tenant>/assets/<sha256>`. */
  readonly assets: AssetBucket;
  /** Absent when the console trusts an external OpenID Connect issuer instead. */
  readonly consoleUsers: ConsoleUsers | undefined;
  readonly agentCa: ISecret;
  /** Every event of the stream, in S3, with its Glue table and Athena workgroup. */
  readonly eventArchive: EventArchive;
  /** Every notification of every tenant, for AWS-native consumers' rules; archived for replay. */
  readonly notificationBus: EventBus;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { config } = props;
    const { removalPolicy } = config.settings;

    this.vpc = new Vpc(this, "Vpc", {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: subnetsFor(config),
      gatewayEndpoints: {
        DynamoDb: { service: GatewayVpcEndpointAwsService.DYNAMODB },
        S3: { service: GatewayVpcEndpointAwsService.S3 },
      },
    });
    // DynamoDB and S3 (the assets) are reached through the gateway endpoints above, which are free. The other services the functions
    // call need interface endpoints, billed per zone-hour and GB (docs/deploying.md): the stream, on every
    // request, the agent CA's secret, when the console issues a certificate, Secrets Manager and Parameter Store,
    // when an agent downloads a flow whose sensitive parameters reference secrets, and Lambda, when the console has
    // the webhook dispatcher (outside the VPC) post a subscription's test. A NAT gateway would cost more.
    // Behind the load balancer, the agent service's tasks (agentCompute=fargate, or the debug bundles' service) pull
    // their image from ECR and write their logs to CloudWatch Logs, through endpoints of their own.
    const serviceEndpoints = isLoadBalancer(config.agentIngress)
      ? ([
          ["EcrApi", InterfaceVpcEndpointAwsService.ECR],
          ["EcrDocker", InterfaceVpcEndpointAwsService.ECR_DOCKER],
          ["Logs", InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS],
        ] as const)
      : [];
    for (const [id, service] of [
      ["Kinesis", InterfaceVpcEndpointAwsService.KINESIS_STREAMS],
      ["SecretsManager", InterfaceVpcEndpointAwsService.SECRETS_MANAGER],
      ["Ssm", InterfaceVpcEndpointAwsService.SSM],
      ["Lambda", InterfaceVpcEndpointAwsService.LAMBDA],
      ...serviceEndpoints,
    ] as const) {
      const endpoint = this.vpc.addInterfaceEndpoint(id, { service, subnets: privateSubnets });
      Validations.of(endpoint).acknowledge({
        id: "AwsSolutions-EC23",
        reason:
          "The endpoint admits HTTPS from the VPC's own CIDR block only; the rule cannot read a CIDR given as " +
          "an intrinsic function.",
      });
    }
    this.vpc.addFlowLog("RejectedTraffic", {
      trafficType: FlowLogTrafficType.REJECT,
      destination: FlowLogDestination.toCloudWatchLogs(
        new LogGroup(this, "FlowLogs", { retention: config.settings.logRetention, removalPolicy }),
      ),
    });

    this.table = new TableV2(this, "Table", {
      partitionKey: { name: TableSchema.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TableSchema.sortKey, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TableSchema.timeToLiveAttribute,
      globalSecondaryIndexes: Object.values(TableSchema.indexes).map((index) => ({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType[TableSchema.indexProjection],
      })),
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy,
    });

    this.stream = new Stream(this, "Events", {
      ...(config.streamShardCount === undefined
        ? { streamMode: StreamMode.ON_DEMAND }
        : { streamMode: StreamMode.PROVISIONED, shardCount: config.streamShardCount }),
      encryption: StreamEncryption.MANAGED,
      removalPolicy,
    });

    this.cache = new BeaconCache(this, "Cache", {
      name: this.stackName.toLowerCase(),
      vpc: this.vpc,
      subnets: privateSubnets,
      limits: config.settings.cacheLimits,
      removalPolicy,
    });

    const assetBucket = new Bucket(this, "Assets", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // No versioning: an object's key is its content's hash, so it is never overwritten with other bytes, and
      // deleting an asset is meant to remove the tenant's bytes, not to keep them as a noncurrent version.
      // Assets larger than a request are uploaded in parts by their callers, straight to the bucket: a multipart
      // upload never completed is removed a day on, and so are the staged bytes of one completed but never
      // checked (the console checks an upload's bytes before it copies them to the asset's key).
      // The answers DESCRIBE acknowledgements brought, and the debug bundles agents uploaded, go some days after
      // the console stops serving them.
      lifecycleRules: [
        { abortIncompleteMultipartUploadAfter: Duration.days(1) },
        { id: "AssetUploads", prefix: `${ASSET_UPLOADS_PREFIX}/`, expiration: Duration.days(1) },
        {
          id: "OperationResults",
          prefix: `${RESULTS_PREFIX}/`,
          expiration: Duration.days(config.operationResultDays),
        },
        {
          id: "DebugBundles",
          prefix: `${DEBUG_BUNDLES_PREFIX}/`,
          expiration: Duration.days(config.debugBundleDays),
        },
      ],
      // The web console's page PUTs an asset's parts to the presigned URLs the console API hands out, from the
      // console's origin: its own domain, or else its distribution's cloudfront.net name, which is made after
      // this stack (the URLs themselves are the authorization; CORS only lets the page read the answers).
      cors: [
        {
          allowedOrigins: [
            config.consoleDomain === undefined
              ? "https://*.cloudfront.net"
              : `https://${config.consoleDomain.domainName}`,
          ],
          allowedMethods: [HttpMethods.PUT],
          allowedHeaders: ["content-type"],
          exposedHeaders: ["ETag"],
          maxAge: 3600,
        },
      ],
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
    });
    Validations.of(assetBucket).acknowledge({
      id: "AwsSolutions-S1",
      reason:
        "Only Beacon's functions reach the bucket, through its VPC's gateway endpoint, and each logs the uploads, " +
        "downloads and deletes it makes with tenant and asset id; access logs would record the same requests again.",
    });
    // Exported under a name of Beacon's own, so that the functions' grants name the bucket the same way in every
    // deployment and their acknowledgement of the tenant wildcard can name the finding (see bindAssetBucket).
    const arnExportName = `${this.stackName}-AssetsArn`;
    new CfnOutput(this, "AssetsArn", { value: assetBucket.bucketArn, exportName: arnExportName });
    this.assets = { bucket: assetBucket, arnExportName };

    this.eventArchive = new EventArchive(this, "EventArchive", {
      removalPolicy,
      databaseName: `beacon_${config.stage}`,
      retentionDays: config.eventArchiveDays,
    });

    this.notificationBus = new EventBus(this, "Notifications", {
      eventBusName: `beacon-${config.stage}-notifications`,
      description: "Beacon's notifications of every tenant: source beacon, detail-type the notification type",
    });
    this.notificationBus.applyRemovalPolicy(removalPolicy);
    this.notificationBus.archive("NotificationArchive", {
      description: "Beacon's notifications, for consumers to replay what they missed",
      eventPattern: { source: [NOTIFICATION_SOURCE] },
      retention: Duration.days(NOTIFICATION_ARCHIVE_DAYS),
    });
    new CfnOutput(this, "NotificationBusName", {
      description: "The EventBridge bus every notification goes on: put your rules here",
      value: this.notificationBus.eventBusName,
    });

    this.consoleUsers =
      config.consoleIdentity.kind === "userPool"
        ? new ConsoleUsers(this, "ConsoleUsers", {
            removalPolicy,
            // The account makes the prefix Beacon's own in the region; the stage tells a stage's apart.
            signInDomainPrefix: `beacon-${config.stage}-${Aws.ACCOUNT_ID}`,
          })
        : undefined;
    this.agentCa = config.agentCaSecretArn
      ? Secret.fromSecretCompleteArn(this, "AgentCa", config.agentCaSecretArn)
      : this.createAgentCaSecret(removalPolicy);

    if (this.consoleUsers) {
      new CfnOutput(this, "ConsoleUserPoolId", { value: this.consoleUsers.userPool.userPoolId });
      new CfnOutput(this, "ConsoleUserPoolClientId", {
        description: "The console's app client: the audience of its ID tokens",
        value: this.consoleUsers.client.userPoolClientId,
      });
    }
    new CfnOutput(this, "AgentCaSecretArn", {
      description: "Put the agent CA here as {certificatePem, privateKeyPem}; see docs/deploying.md",
      value: this.agentCa.secretArn,
    });
  }

  /**
   * The secret the console signs agent certificates with. Created with a placeholder value: the operator
   * puts the CA in it (`{"certificatePem", "privateKeyPem"}`, see docs/deploying.md) and the CA's certificate
   * in the agents' CA bundle. Until then certificate issuing answers 503.
   */
  private createAgentCaSecret(removalPolicy: RemovalPolicy): Secret {
    const secret = new Secret(this, "AgentCa", {
      description: "Beacon agent CA: {certificatePem, privateKeyPem} of the CA that signs agent certificates",
      removalPolicy,
    });
    Validations.of(secret).acknowledge({
      id: "AwsSolutions-SMG4",
      reason:
        "The secret holds a certificate authority's key; replacing it is a CA rollover (new CA in the agents' " +
        "truststore, agents reissued), planned by people, not a rotation a function could carry out.",
    });
    return secret;
  }
}

function subnetsFor(config: BeaconConfig): SubnetConfiguration[] {
  const isolated: SubnetConfiguration = {
    name: "Private",
    subnetType: SubnetType.PRIVATE_ISOLATED,
    cidrMask: 22,
  };
  // Only an internet-facing load balancer needs public subnets; the API Gateway ingress keeps the VPC private.
  if (!isLoadBalancer(config.agentIngress)) return [isolated];
  return [isolated, { name: "Ingress", subnetType: SubnetType.PUBLIC, cidrMask: 24 }];
}

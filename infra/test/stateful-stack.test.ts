import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { TableSchema } from "../../functions/adapters/dynamodb/table-schema.js";
import { NOTIFICATION_SOURCE } from "../../functions/adapters/eventbridge/notification-bus.js";
import { type SynthesizedBeacon, synthesized } from "./assembly.js";

let dev: SynthesizedBeacon;
let prod: SynthesizedBeacon;

beforeAll(() => {
  dev = synthesized("dev");
  prod = synthesized("prodAlb");
});

describe("registry table", () => {
  it("is built from the shared table schema: string keys, every index, TTL, on-demand", () => {
    prod.statefulTemplate.hasResourceProperties("AWS::DynamoDB::GlobalTable", {
      KeySchema: [
        { AttributeName: TableSchema.partitionKey, KeyType: "HASH" },
        { AttributeName: TableSchema.sortKey, KeyType: "RANGE" },
      ],
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: TableSchema.partitionKey, AttributeType: "S" },
        { AttributeName: TableSchema.sortKey, AttributeType: "S" },
      ]),
      GlobalSecondaryIndexes: Object.values(TableSchema.indexes).map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: "HASH" },
          { AttributeName: index.sortKey, KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: TableSchema.indexProjection },
      })),
      TimeToLiveSpecification: { AttributeName: TableSchema.timeToLiveAttribute, Enabled: true },
      BillingMode: "PAY_PER_REQUEST",
    });
  });

  it("has point-in-time recovery in every stage", () => {
    for (const { statefulTemplate } of [dev, prod]) {
      statefulTemplate.hasResourceProperties("AWS::DynamoDB::GlobalTable", {
        Replicas: [
          Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }),
        ],
      });
    }
  });

  it("is protected from deletion and retained outside dev, disposable in dev", () => {
    prod.statefulTemplate.hasResource("AWS::DynamoDB::GlobalTable", {
      DeletionPolicy: "Retain",
      Properties: Match.objectLike({ Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })] }),
    });
    dev.statefulTemplate.hasResource("AWS::DynamoDB::GlobalTable", {
      DeletionPolicy: "Delete",
      Properties: Match.objectLike({ Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })] }),
    });
  });
});

describe("notification bus", () => {
  it("is the stage's own EventBridge bus, archiving Beacon's notifications for 30 days", () => {
    dev.statefulTemplate.hasResourceProperties("AWS::Events::EventBus", { Name: "beacon-dev-notifications" });
    dev.statefulTemplate.hasResourceProperties("AWS::Events::Archive", {
      SourceArn: { "Fn::GetAtt": [Match.stringLikeRegexp("^Notifications"), "Arn"] },
      EventPattern: { source: [NOTIFICATION_SOURCE] },
      RetentionDays: 30,
    });
    dev.statefulTemplate.hasOutput("NotificationBusName", {
      Value: { Ref: Match.stringLikeRegexp("^Notifications") },
    });
  });

  it("is retained outside dev, with the rules its consumers put on it", () => {
    prod.statefulTemplate.hasResource("AWS::Events::EventBus", { DeletionPolicy: "Retain" });
    dev.statefulTemplate.hasResource("AWS::Events::EventBus", { DeletionPolicy: "Delete" });
  });
});

describe("event stream", () => {
  it("is encrypted and on-demand by default", () => {
    dev.statefulTemplate.hasResourceProperties("AWS::Kinesis::Stream", {
      StreamEncryption: { EncryptionType: "KMS", KeyId: "alias/aws/kinesis" },
      StreamModeDetails: { StreamMode: "ON_DEMAND" },
    });
  });

  it("takes a provisioned shard count from context", () => {
    prod.statefulTemplate.hasResource("AWS::Kinesis::Stream", {
      DeletionPolicy: "Retain",
      Properties: Match.objectLike({
        StreamEncryption: { EncryptionType: "KMS", KeyId: "alias/aws/kinesis" },
        StreamModeDetails: { StreamMode: "PROVISIONED" },
        ShardCount: 4,
      }),
    });
  });
});

describe("assets bucket", () => {
  it("is private, encrypted, reachable over TLS only, and keeps no leftovers", () => {
    const template = prod.statefulTemplate;
    template.hasResourceProperties("AWS::S3::Bucket", {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: "BucketOwnerEnforced" }] },
      LifecycleConfiguration: {
        Rules: [
          // An asset's upload in parts abandoned by its caller: the parts, then staged bytes never checked.
          { AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: "Enabled" },
          { Id: "AssetUploads", Prefix: "asset-uploads/", ExpirationInDays: 1, Status: "Enabled" },
          // What DESCRIBE acknowledgements answered, once the console no longer serves it.
          { Id: "OperationResults", Prefix: "operation-results/", ExpirationInDays: 7, Status: "Enabled" },
          // The debug bundles agents uploaded, a day after they were stored.
          { Id: "DebugBundles", Prefix: "debug-bundles/", ExpirationInDays: 1, Status: "Enabled" },
        ],
      },
    });
    template.hasResourceProperties("AWS::S3::BucketPolicy", {
      Bucket: { Ref: Match.stringLikeRegexp("^Assets") },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
        ]),
      },
    });
  });

  it("takes an asset's parts PUT from the web console's origin, with ETag exposed", () => {
    const rule = { AllowedMethods: ["PUT"], ExposedHeaders: ["ETag"], AllowedHeaders: ["content-type"] };
    prod.statefulTemplate.hasResourceProperties("AWS::S3::Bucket", {
      CorsConfiguration: {
        CorsRules: [{ ...rule, AllowedOrigins: ["https://*.cloudfront.net"], MaxAge: 3600 }],
      },
    });
    synthesized("prod").statefulTemplate.hasResourceProperties("AWS::S3::Bucket", {
      CorsConfiguration: {
        CorsRules: [{ ...rule, AllowedOrigins: ["https://console.beacon.example.com"], MaxAge: 3600 }],
      },
    });
  });

  it("is retained outside dev, emptied and deleted with a dev stack", () => {
    prod.statefulTemplate.hasResource("AWS::S3::Bucket", { DeletionPolicy: "Retain" });
    dev.statefulTemplate.hasResource("AWS::S3::Bucket", { DeletionPolicy: "Delete" });
    // With the event archive's two buckets.
    dev.statefulTemplate.resourceCountIs("Custom::S3AutoDeleteObjects", 3);
  });

  it("is reached through a gateway endpoint", () => {
    dev.statefulTemplate.hasResourceProperties("AWS::EC2::VPCEndpoint", {
      VpcEndpointType: "Gateway",
      ServiceName: { "Fn::Join": ["", ["com.amazonaws.", { Ref: "AWS::Region" }, ".s3"]] },
    });
  });
});

describe("network and cache", () => {
  it("is a two-zone VPC of private subnets with no NAT gateway or internet route", () => {
    const template = dev.statefulTemplate;
    template.resourceCountIs("AWS::EC2::Subnet", 2);
    template.resourceCountIs("AWS::EC2::NatGateway", 0);
    template.resourceCountIs("AWS::EC2::InternetGateway", 0);
    template.resourcePropertiesCountIs("AWS::EC2::Subnet", { MapPublicIpOnLaunch: false }, 2);
  });

  it("reaches DynamoDB through a gateway endpoint and Kinesis through an interface endpoint", () => {
    const template = dev.statefulTemplate;
    template.hasResourceProperties("AWS::EC2::VPCEndpoint", {
      VpcEndpointType: "Gateway",
      ServiceName: { "Fn::Join": ["", ["com.amazonaws.", { Ref: "AWS::Region" }, ".dynamodb"]] },
    });
    template.hasResourceProperties("AWS::EC2::VPCEndpoint", {
      VpcEndpointType: "Interface",
      PrivateDnsEnabled: true,
      ServiceName: { "Fn::Join": ["", ["com.amazonaws.", { Ref: "AWS::Region" }, ".kinesis-streams"]] },
      SubnetIds: privateSubnetRefs(dev),
    });
  });

  it("adds the endpoints the agent service's tasks pull their image and write their logs through only behind the load balancer", () => {
    const serviceEndpoints = (beacon: SynthesizedBeacon) =>
      Object.values(beacon.statefulTemplate.findResources("AWS::EC2::VPCEndpoint"))
        .map((endpoint) => JSON.stringify(endpoint.Properties.ServiceName))
        .filter((name) => /\.(ecr\.api|ecr\.dkr|logs)"/.test(name));
    expect(serviceEndpoints(dev)).toEqual([]);
    expect(serviceEndpoints(synthesized("prodAlb"))).toHaveLength(3);
    expect(serviceEndpoints(synthesized("prodFargate"))).toHaveLength(3);
  });

  it("adds public subnets only for the load balancer ingress", () => {
    prod.statefulTemplate.resourcePropertiesCountIs("AWS::EC2::Subnet", { MapPublicIpOnLaunch: true }, 2);
    prod.statefulTemplate.resourceCountIs("AWS::EC2::NatGateway", 0);
  });

  it("runs Valkey serverless in the private subnets behind a security group that admits no one by itself", () => {
    const template = dev.statefulTemplate;
    template.hasResourceProperties("AWS::ElastiCache::ServerlessCache", {
      Engine: "valkey",
      SubnetIds: privateSubnetRefs(dev),
      SecurityGroupIds: [{ "Fn::GetAtt": [Match.stringLikeRegexp("^CacheSecurityGroup"), "GroupId"] }],
    });
    template.hasResourceProperties("AWS::EC2::SecurityGroup", {
      GroupDescription: Match.stringLikeRegexp("^Beacon cache"),
      SecurityGroupIngress: Match.absent(),
    });
    template.resourceCountIs("AWS::EC2::SecurityGroupIngress", 0);
  });
});

function privateSubnetRefs(beacon: SynthesizedBeacon) {
  const subnets = beacon.statefulTemplate.findResources("AWS::EC2::Subnet", {
    Properties: { MapPublicIpOnLaunch: false },
  });
  expect(Object.keys(subnets)).toHaveLength(2);
  return Object.keys(subnets).map((logicalId) => ({ Ref: logicalId }));
}

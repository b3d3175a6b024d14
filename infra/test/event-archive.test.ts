import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { EnvNames } from "../../functions/shared/env-names.js";
import { EVENTS_TABLE } from "../lib/event-archive.js";
import { eventColumns, eventSchemas } from "../lib/event-columns.js";
import { nagAcknowledgementsOf, type SynthesizedBeacon, synthesized } from "./assembly.js";

let dev: SynthesizedBeacon;
let prod: SynthesizedBeacon;

beforeAll(() => {
  dev = synthesized("dev");
  prod = synthesized("prod");
});

type Resource = { Properties: Record<string, unknown>; DeletionPolicy?: string };

const consumerLogicalId = (beacon: SynthesizedBeacon) => {
  const [logicalId] = Object.keys(beacon.statelessTemplate.findResources("AWS::Lambda::Function")).filter(
    (id) => id.startsWith("StreamConsumerFunction"),
  );
  if (logicalId === undefined) throw new Error("no stream consumer function");
  return logicalId;
};

const archiveBucket = (beacon: SynthesizedBeacon): Resource => {
  const found = Object.entries(beacon.statefulTemplate.findResources("AWS::S3::Bucket")).filter(([id]) =>
    id.startsWith("EventArchiveBucket"),
  );
  expect(found).toHaveLength(1);
  return found[0]?.[1] as Resource;
};

const eventsTable = (beacon: SynthesizedBeacon) => {
  const tables = Object.values(beacon.statefulTemplate.findResources("AWS::Glue::Table"));
  expect(tables).toHaveLength(1);
  return (tables[0] as Resource).Properties.TableInput as {
    Name: string;
    Parameters: Record<string, unknown>;
    PartitionKeys: { Name: string; Type: string }[];
    StorageDescriptor: { Columns: { Name: string; Type: string }[]; SerdeInfo: object; Location: unknown };
  };
};

describe("event archive", () => {
  it("is private, encrypted, reachable over TLS only, moves to Infrequent Access after 30 days and expires after 400", () => {
    const bucket = archiveBucket(prod);
    expect(bucket.Properties).toMatchObject({
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
        Rules: expect.arrayContaining([
          expect.objectContaining({
            ExpirationInDays: 400,
            Transitions: [{ StorageClass: "STANDARD_IA", TransitionInDays: 30 }],
            Status: "Enabled",
          }),
        ]),
      },
    });
    expect(bucket.DeletionPolicy).toBe("Retain");
    prod.statefulTemplate.hasResourceProperties("AWS::S3::BucketPolicy", {
      Bucket: { Ref: Match.stringLikeRegexp("^EventArchiveBucket") },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
        ]),
      },
    });
  });

  it("is a Glue table beacon_events of gzip JSON lines, every event schema's field a column", () => {
    const table = eventsTable(prod);
    expect(table.Name).toBe(EVENTS_TABLE);
    prod.statefulTemplate.hasResourceProperties("AWS::Glue::Database", {
      DatabaseInput: Match.objectLike({ Name: "beacon_prod" }),
    });
    prod.statefulTemplate.hasResourceProperties("AWS::Glue::Table", { DatabaseName: "beacon_prod" });
    expect(table.StorageDescriptor.SerdeInfo).toEqual({
      SerializationLibrary: "org.openx.data.jsonserde.JsonSerDe",
    });
    const columns = table.StorageDescriptor.Columns.map((column) => column.Name);
    const fields = new Set(eventSchemas.flatMap((schema) => Object.keys(schema.properties ?? {})));
    fields.delete("tenant");
    expect(columns.sort()).toEqual([...fields].map((field) => field.toLowerCase()).sort());
    expect(table.StorageDescriptor.Columns).toEqual(
      expect.arrayContaining([
        { Name: "eventid", Type: "string" },
        { Name: "at", Type: "bigint" },
        { Name: "operationssent", Type: "array<string>" },
        { Name: "processorsbyrunstatus", Type: "map<string,bigint>" },
        { Name: "device", Type: "struct<deviceid:string,hostname:string>" },
      ]),
    );
  });

  it("projects its partitions from the keys the consumer writes: the tenant a query names, its days and hours", () => {
    const table = eventsTable(prod);
    expect(table.PartitionKeys).toEqual([
      { Name: "tenant", Type: "string" },
      { Name: "day", Type: "string" },
      { Name: "hour", Type: "string" },
    ]);
    expect(table.Parameters).toMatchObject({
      "projection.enabled": "true",
      "projection.tenant.type": "injected",
      "projection.day.type": "date",
      "projection.day.format": "yyyy-MM-dd",
      "projection.day.range": "NOW-400DAYS,NOW",
      "projection.hour.type": "integer",
      "projection.hour.range": "0,23",
      "projection.hour.digits": "2",
    });
    const template = JSON.stringify(table.Parameters["storage.location.template"]);
    // The placeholders Athena fills in, literally.
    expect(template).toContain(["/events/tenant=", "{tenant}/day=", "{day}/hour=", "{hour}/"].join("$"));
    expect(JSON.stringify(table.Parameters["storage.location.template"])).toContain("EventArchiveBucket");
  });

  it("is queried in an Athena workgroup that enforces its encrypted results location", () => {
    prod.statefulTemplate.hasResourceProperties("AWS::Athena::WorkGroup", {
      WorkGroupConfiguration: {
        EnforceWorkGroupConfiguration: true,
        ResultConfiguration: {
          OutputLocation: Match.anyValue(),
          EncryptionConfiguration: { EncryptionOption: "SSE_S3" },
        },
      },
    });
    const [workGroup] = Object.values(prod.statefulTemplate.findResources("AWS::Athena::WorkGroup"));
    expect(JSON.stringify(workGroup)).toContain("EventArchiveQueryResults");
  });

  it("types the events' constant version as an int", () => {
    expect(eventColumns(["tenant"]).find((column) => column.name === "version")).toEqual({
      name: "version",
      type: "int",
    });
  });

  it("has the columns of the agents' offline and online events", () => {
    const columns = eventColumns(["tenant"]);
    expect(columns).toContainEqual({ name: "lastseen", type: "bigint" });
    expect(columns).toContainEqual({ name: "heartbeatperiodms", type: "bigint" });
  });
});

describe("stream consumer", () => {
  it("is a Beacon function that may only put and read objects under the archive's events/ prefix, use the table for fleet history and deliveries, put webhook.disabled on the stream and notifications on the bus", () => {
    const consumer = prod.statelessTemplate.toJSON().Resources[consumerLogicalId(prod)];
    expect(consumer.Properties).toMatchObject({ Runtime: "nodejs22.x", Architectures: ["arm64"] });
    // Outside the VPC: it posts deliveries' first attempts to tenants' receivers on the internet.
    expect(consumer.Properties.VpcConfig).toBeUndefined();
    const variables = consumer.Properties.Environment.Variables as Record<string, unknown>;
    expect(Object.keys(variables).filter((name) => name.startsWith("BEACON_"))).toEqual([
      EnvNames.archiveBucket,
      EnvNames.tableName,
      EnvNames.streamName,
      EnvNames.notificationBusName,
    ]);
    const policies = Object.values(
      prod.statelessTemplate.findResources("AWS::IAM::Policy", {
        Properties: { Roles: [{ Ref: Match.stringLikeRegexp("^StreamConsumerRole") }] },
      }),
    );
    const statements = policies.flatMap(
      (policy) =>
        (policy.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] })
          .Statement,
    );
    const s3 = statements.filter((statement) => JSON.stringify(statement.Action).includes("s3:"));
    // It writes the archive's objects and reads them back to pass over copies; it never deletes one.
    expect(s3).toHaveLength(2);
    expect(s3[0]?.Action).toEqual(["s3:GetObject", "s3:PutObject"]);
    expect(JSON.stringify(s3[0]?.Resource)).toContain("EventArchiveArn");
    expect(JSON.stringify(s3[0]?.Resource)).toContain("/events/*");
    expect(s3[1]).toMatchObject({
      Action: "s3:ListBucket",
      Condition: { StringLike: { "s3:prefix": "events/*" } },
    });
    const events = statements.filter((statement) => JSON.stringify(statement.Action).includes("events:"));
    expect(events).toEqual([
      expect.objectContaining({
        Action: "events:PutEvents",
        Resource: { "Fn::ImportValue": expect.stringMatching(/Notifications.*Arn/) },
      }),
    ]);
  });

  it("reads the stream in batches with partial batch responses, bisection, bounded retries and a dead-letter queue", () => {
    prod.statelessTemplate.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      FunctionName: { Ref: consumerLogicalId(prod) },
      EventSourceArn: { "Fn::ImportValue": Match.stringLikeRegexp("Events") },
      StartingPosition: "TRIM_HORIZON",
      BatchSize: 10_000,
      MaximumBatchingWindowInSeconds: 60,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 20,
      MaximumRecordAgeInSeconds: 6 * 3600,
      DestinationConfig: {
        OnFailure: {
          Destination: { "Fn::GetAtt": [Match.stringLikeRegexp("^StreamConsumerDeadLetters"), "Arn"] },
        },
      },
    });
    prod.statelessTemplate.hasResourceProperties("AWS::SQS::Queue", {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
  });

  it("alarms on dead letters, on falling behind the stream, and on refused records and failing consumers", () => {
    prod.statelessTemplate.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "ApproximateNumberOfMessagesVisible",
      Namespace: "AWS/SQS",
      Threshold: 1,
    });
    prod.statelessTemplate.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "IteratorAge",
      Dimensions: [{ Name: "FunctionName", Value: { Ref: consumerLogicalId(prod) } }],
      Statistic: "Maximum",
    });
    for (const metricName of ["EventsRefused", "ConsumerFailures"])
      prod.statelessTemplate.hasResourceProperties("AWS::CloudWatch::Alarm", {
        MetricName: metricName,
        Dimensions: [{ Name: "service", Value: "stream-consumer-prod" }],
      });
  });

  it("is deployed in dev as in prod, its archive emptied and deleted with a dev stack", () => {
    expect(consumerLogicalId(dev)).toBeDefined();
    expect(archiveBucket(dev).DeletionPolicy).toBe("Delete");
  });

  it("needs no AwsSolutions acknowledgement beyond the function construct's, its archive grant's and its queue's", () => {
    const rules = nagAcknowledgementsOf(prod)
      .filter(({ path }) => path.includes("/StreamConsumer"))
      .map(({ rule }) => rule.replace(/Resource::Beacon-\w+-Stateful-/, "Resource::<stateful stack>-"));
    expect(rules.sort()).toEqual(
      [
        "AwsSolutions-IAM5[Resource::*]",
        "AwsSolutions-IAM5[Resource::<stateful stack>-EventArchiveArn/events/*]",
        "AwsSolutions-L1",
        "AwsSolutions-SQS3",
      ].sort(),
    );
  });
});

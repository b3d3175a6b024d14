import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { TableSchema } from "../../functions/adapters/dynamodb/table-schema.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { nagAcknowledgementsOf, type SynthesizedBeacon, synthesized } from "./assembly.js";

let prod: SynthesizedBeacon;

beforeAll(() => {
  prod = synthesized("prod");
});

type Statement = { Action: string | string[]; Resource: unknown };

const sweeperLogicalId = () => {
  const [logicalId] = Object.keys(prod.statelessTemplate.findResources("AWS::Lambda::Function")).filter(
    (id) => id.startsWith("SweeperFunction"),
  );
  if (logicalId === undefined) throw new Error("no sweeper function");
  return logicalId;
};

describe("sweeper", () => {
  it("runs every minute from an EventBridge rule, without retries: the next run redoes a failed one", () => {
    const rules = Object.values(prod.statelessTemplate.findResources("AWS::Events::Rule")).filter((rule) =>
      JSON.stringify(rule.Properties.Targets).includes(sweeperLogicalId()),
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties).toMatchObject({
      ScheduleExpression: "rate(1 minute)",
      State: "ENABLED",
      Targets: [
        {
          Arn: { "Fn::GetAtt": [sweeperLogicalId(), "Arn"] },
          RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
        },
      ],
    });
    prod.statelessTemplate.hasResourceProperties("AWS::Lambda::Permission", {
      Action: "lambda:InvokeFunction",
      Principal: "events.amazonaws.com",
      FunctionName: { "Fn::GetAtt": [sweeperLogicalId(), "Arn"] },
    });
    prod.statelessTemplate.hasResourceProperties("AWS::Lambda::EventInvokeConfig", {
      MaximumRetryAttempts: 0,
    });
  });

  it("is a Beacon function reading the table, stream and cache with its event buffer's bounds, the agent API's URL for rollouts, the bucket of the debug bundles adoptions read, the event archive its relays look in, the CA fingerprints it trusts and the fleet metrics it writes", () => {
    const sweeper = prod.statelessTemplate.toJSON().Resources[sweeperLogicalId()];
    expect(sweeper.Properties).toMatchObject({
      Runtime: "nodejs22.x",
      Architectures: ["arm64"],
      VpcConfig: expect.objectContaining({ SubnetIds: expect.any(Array) }),
    });
    const variables = sweeper.Properties.Environment.Variables as Record<string, unknown>;
    expect(
      Object.keys(variables)
        .filter((name) => name.startsWith("BEACON_"))
        .sort(),
    ).toEqual(
      [
        EnvNames.tableName,
        EnvNames.streamName,
        EnvNames.redisUrl,
        EnvNames.agentApiUrl,
        EnvNames.assetBucket,
        EnvNames.eventBufferMaxEvents,
        EnvNames.eventBufferMaxEventsPerTenant,
        EnvNames.archiveBucket,
        EnvNames.fleetMetricsToCloudWatch,
        EnvNames.trustedCaFingerprints,
      ].sort(),
    );
    expect(variables[EnvNames.eventBufferMaxEvents]).toBe("200000");
    expect(variables[EnvNames.eventBufferMaxEventsPerTenant]).toBe("20000");
    expect(JSON.stringify(variables[EnvNames.redisUrl])).toContain("rediss://");
    expect(variables[EnvNames.agentApiUrl]).toBe("https://c2.beacon.example.com");
    expect(variables.POWERTOOLS_SERVICE_NAME).toBe("sweeper-prod");
    expect(variables[EnvNames.fleetMetricsToCloudWatch]).toBe("1");
  });

  it("runs one at a time, each run ending before the next is due: overlapping runs would race on rollouts", () => {
    const sweeper = prod.statelessTemplate.toJSON().Resources[sweeperLogicalId()];
    expect(sweeper.Properties.ReservedConcurrentExecutions).toBe(1);
    expect(sweeper.Properties.Timeout).toBeLessThan(60);
  });

  it("is admitted by the cache's security group", () => {
    const { VpcConfig } = prod.statelessTemplate.toJSON().Resources[sweeperLogicalId()].Properties as {
      VpcConfig: { SecurityGroupIds: unknown[] };
    };
    prod.statelessTemplate.hasResourceProperties("AWS::EC2::SecurityGroupIngress", {
      IpProtocol: "tcp",
      FromPort: 6379,
      ToPort: 6380,
      GroupId: { "Fn::ImportValue": Match.stringLikeRegexp("CacheSecurityGroup") },
      SourceSecurityGroupId: VpcConfig.SecurityGroupIds[0],
    });
  });

  it("may query the due index and update items, with no wildcard and no scan", () => {
    const [policy = { Properties: {} }] = Object.values(
      prod.statelessTemplate.findResources("AWS::IAM::Policy", {
        Properties: { Roles: [{ Ref: Match.stringLikeRegexp("^SweeperRole") }] },
      }),
    );
    const statements = (policy.Properties as { PolicyDocument: { Statement: Statement[] } }).PolicyDocument
      .Statement;
    const data = statements.filter((statement) =>
      [statement.Action].flat().some((action) => /^(dynamodb|kinesis):/.test(action)),
    );
    const actions = data.flatMap((statement) => [statement.Action].flat());
    expect(actions).toEqual(
      expect.arrayContaining([
        "dynamodb:Query",
        "dynamodb:GetItem",
        "dynamodb:UpdateItem",
        "kinesis:PutRecords",
      ]),
    );
    expect(actions).not.toContain("dynamodb:Scan");
    for (const statement of data) {
      expect([statement.Action].flat().filter((action) => action.includes("*"))).toEqual([]);
      expect(JSON.stringify(statement.Resource)).not.toContain("*");
    }
    expect(JSON.stringify(data)).toContain(`/index/${TableSchema.indexes.due.indexName}`);
  });

  it("alarms on its errors, throttles, stream failures and cache fallbacks (rollouts held back)", () => {
    for (const metricName of ["Errors", "Throttles"])
      prod.statelessTemplate.hasResourceProperties("AWS::CloudWatch::Alarm", {
        MetricName: metricName,
        Dimensions: [{ Name: "FunctionName", Value: { Ref: sweeperLogicalId() } }],
      });
    for (const metricName of ["StreamFailures", "CacheFallbacks"])
      prod.statelessTemplate.hasResourceProperties("AWS::CloudWatch::Alarm", {
        MetricName: metricName,
        Dimensions: [{ Name: "service", Value: "sweeper-prod" }],
      });
  });

  it("needs no AwsSolutions acknowledgement beyond the function construct's own and its reads of debug bundles and the archive", () => {
    const rules = nagAcknowledgementsOf(prod)
      .filter(({ path }) => path.includes("/Sweeper"))
      .map(({ rule }) => rule);
    // Adoptions read an agent's flow out of its debug bundle: the bundles' prefix alone, for reading; the relays
    // look for the events they would put again in the archive's prefix alone.
    expect(rules.sort()).toEqual([
      "AwsSolutions-IAM5[Resource::*]",
      "AwsSolutions-IAM5[Resource::Beacon-prod-Stateful-AssetsArn/debug-bundles/*]",
      "AwsSolutions-IAM5[Resource::Beacon-prod-Stateful-EventArchiveArn/events/*]",
      "AwsSolutions-L1",
    ]);
  });
});

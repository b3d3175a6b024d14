import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { EnvNames } from "../../functions/shared/env-names.js";
import { FunctionTimeouts } from "../../functions/shared/function-timeouts.js";
import { type SynthesizedBeacon, synthesized } from "./assembly.js";

let prod: SynthesizedBeacon;

beforeAll(() => {
  prod = synthesized("prod");
});

const dispatcherLogicalId = () => {
  const [logicalId] = Object.keys(prod.statelessTemplate.findResources("AWS::Lambda::Function")).filter(
    (id) => id.startsWith("WebhookDispatcherFunction"),
  );
  if (logicalId === undefined) throw new Error("no webhook dispatcher function");
  return logicalId;
};

describe("webhook dispatcher", () => {
  it("runs every minute from an EventBridge rule of its own, without retries: the next run takes what is due", () => {
    const rules = Object.values(prod.statelessTemplate.findResources("AWS::Events::Rule")).filter((rule) =>
      JSON.stringify(rule.Properties.Targets).includes(dispatcherLogicalId()),
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties).toMatchObject({
      ScheduleExpression: "rate(1 minute)",
      State: "ENABLED",
      Targets: [{ RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 } }],
    });
    prod.statelessTemplate.hasResourceProperties("AWS::Lambda::Permission", {
      Action: "lambda:InvokeFunction",
      Principal: "events.amazonaws.com",
      FunctionName: { "Fn::GetAtt": [dispatcherLogicalId(), "Arn"] },
    });
  });

  it("runs outside the VPC, ending before the next run, with the table and the stream only", () => {
    const { Properties } = prod.statelessTemplate.toJSON().Resources[dispatcherLogicalId()];
    // A run and two of the console's tests at once.
    expect(Properties.ReservedConcurrentExecutions).toBe(3);
    expect(Properties.Timeout).toBe(FunctionTimeouts.webhookDispatcher);
    expect(Properties.Timeout).toBeLessThan(60);
    expect(Properties.VpcConfig).toBeUndefined();
    const variables = Properties.Environment.Variables as Record<string, unknown>;
    expect(
      Object.keys(variables)
        .filter((name) => name.startsWith("BEACON_"))
        .sort(),
    ).toEqual([EnvNames.tableName, EnvNames.streamName].sort());
    // On AWS no receiver may be private: nothing is allow-listed, and only public CAs are trusted.
    expect(variables[EnvNames.webhookAllowedHosts]).toBeUndefined();
    expect(variables[EnvNames.webhookCaFile]).toBeUndefined();
  });

  it("is invoked by the console API, whose role may invoke it and no other function, through the VPC's Lambda endpoint", () => {
    const consoleFunctions = Object.values(
      prod.statelessTemplate.findResources("AWS::Lambda::Function"),
    ).filter(
      (resource) =>
        resource.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === "console-api-prod",
    );
    expect(consoleFunctions).toHaveLength(1);
    expect(consoleFunctions[0]?.Properties.Environment.Variables[EnvNames.webhookTesterFunction]).toEqual({
      Ref: dispatcherLogicalId(),
    });
    const invokeStatements = Object.entries(prod.statelessTemplate.findResources("AWS::IAM::Policy")).flatMap(
      ([id, policy]) =>
        (policy.Properties.PolicyDocument.Statement as Array<{ Action: unknown; Resource: unknown }>)
          .filter((statement) => JSON.stringify(statement.Action).includes("lambda:"))
          .map((statement) => ({ id, ...statement })),
    );
    expect(invokeStatements).toEqual([
      {
        id: expect.stringMatching(/^ConsoleApiRoleDefaultPolicy/),
        Effect: "Allow",
        Action: "lambda:InvokeFunction",
        Resource: { "Fn::GetAtt": [dispatcherLogicalId(), "Arn"] },
      },
    ]);
    prod.statefulTemplate.hasResourceProperties("AWS::EC2::VPCEndpoint", {
      VpcEndpointType: "Interface",
      PrivateDnsEnabled: true,
      ServiceName: { "Fn::Join": ["", ["com.amazonaws.", { Ref: "AWS::Region" }, ".lambda"]] },
    });
  });

  it("alarms on deliveries given up and subscriptions disabled, by its service dimension", () => {
    for (const metricName of ["WebhookFailures", "WebhooksDisabled"])
      prod.statelessTemplate.hasResourceProperties("AWS::CloudWatch::Alarm", {
        Namespace: "Beacon",
        MetricName: metricName,
        Dimensions: [{ Name: "service", Value: "webhook-dispatcher-prod" }],
        Statistic: "Sum",
      });
    prod.statelessTemplate.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "WebhooksDisabled",
      Dimensions: [{ Name: "service", Value: Match.stringLikeRegexp("^stream-consumer-") }],
    });
  });
});

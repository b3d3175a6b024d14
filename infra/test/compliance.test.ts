import { describe, expect, it } from "vitest";
import { nagAcknowledgementsOf, synthesisErrorOf, synthesized, templatePathsOf } from "./assembly.js";
import { cfnLint } from "./cfn-lint.js";
import { beaconVariantNames, beaconVariants } from "./variants.js";

describe.each(beaconVariantNames.map((variant) => [beaconVariants[variant].description, variant] as const))(
  "%s",
  (_, variant) => {
    it("synthesizes with no unacknowledged AwsSolutions finding", () => {
      expect(synthesisErrorOf(variant)).toBeUndefined();
    });

    it("gives every acknowledgement a written reason", () => {
      const acknowledgements = nagAcknowledgementsOf(synthesized(variant));
      expect(acknowledgements.length).toBeGreaterThan(0);
      for (const { rule, reason } of acknowledgements) {
        expect(reason.split(" ").length, rule).toBeGreaterThanOrEqual(12);
      }
    });

    it("passes cfn-lint on every template", async () => {
      const templates = templatePathsOf(synthesized(variant));
      expect(templates).toHaveLength(2);
      const { exitCode, findings } = await cfnLint(templates);
      expect(findings).toEqual([]);
      expect(exitCode).toBe(0);
    });
  },
);

it("acknowledges only these AwsSolutions rules, each for a reason written beside it", () => {
  const rules = new Set(
    beaconVariantNames.flatMap((variant) =>
      // The assets grant's finding names the stateful stack, whose name each variant has its own of.
      nagAcknowledgementsOf(synthesized(variant)).map(({ rule }) =>
        rule.replace(/Resource::Beacon-\w+-Stateful-/, "Resource::<stateful stack>-"),
      ),
    ),
  );
  expect([...rules].sort()).toEqual([
    "AwsSolutions-APIG2",
    "AwsSolutions-APIG3",
    "AwsSolutions-APIG4",
    "AwsSolutions-APIG6",
    "AwsSolutions-CFR1",
    "AwsSolutions-CFR2",
    "AwsSolutions-CFR4",
    "AwsSolutions-COG4",
    "AwsSolutions-COG8",
    "AwsSolutions-EC23",
    "AwsSolutions-ECS2",
    "AwsSolutions-ELB2",
    "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]",
    "AwsSolutions-IAM5[Action::s3:Abort*]",
    "AwsSolutions-IAM5[Action::s3:DeleteObject*]",
    "AwsSolutions-IAM5[Action::s3:GetBucket*]",
    "AwsSolutions-IAM5[Action::s3:GetObject*]",
    "AwsSolutions-IAM5[Action::s3:List*]",
    "AwsSolutions-IAM5[Resource::*]",
    "AwsSolutions-IAM5[Resource::<WebConsoleSite8BA75FD3.Arn>/*]",
    "AwsSolutions-IAM5[Resource::<stateful stack>-AssetsArn/*/assets/*]",
    "AwsSolutions-IAM5[Resource::<stateful stack>-AssetsArn/asset-uploads/*]",
    "AwsSolutions-IAM5[Resource::<stateful stack>-AssetsArn/debug-bundles/*]",
    "AwsSolutions-IAM5[Resource::<stateful stack>-AssetsArn/operation-results/*]",
    "AwsSolutions-IAM5[Resource::<stateful stack>-EventArchiveArn/events/*]",
    "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]",
    "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:beacon/*]",
    "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:parameter/beacon/*]",
    "AwsSolutions-L1",
    "AwsSolutions-S1",
    "AwsSolutions-SMG4",
    "AwsSolutions-SQS3",
  ]);
});

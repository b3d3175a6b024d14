import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Validations } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import type { CloudAssembly } from "aws-cdk-lib/cx-api";
import { type BeaconApp, buildBeacon } from "../lib/beacon-app.js";
import { repositoryRoot } from "../lib/paths.js";

export interface SynthesizedBeacon extends BeaconApp {
  readonly app: App;
  readonly assembly: CloudAssembly;
  readonly statefulTemplate: Template;
  readonly statelessTemplate: Template;
}

/**
 * Synthesizes Beacon as `cdk synth` does: the context of cdk.json (feature flags and example agent domain)
 * with the given values on top, into a fresh temporary directory. Synthesis throws on any AwsSolutions finding
 * that is not acknowledged. Bundling makes this slow: call it once per variant in a `beforeAll`.
 */
export function synthesizeBeacon(context: Record<string, string>): SynthesizedBeacon {
  const cdkJson = JSON.parse(readFileSync(join(repositoryRoot, "cdk.json"), "utf8"));
  const app = new App({
    outdir: mkdtempSync(join(tmpdir(), "beacon-cdk-")),
    context: { ...cdkJson.context, ...context },
  });
  const beacon = buildBeacon(app);
  const assembly = app.synth();
  return {
    ...beacon,
    app,
    assembly,
    statefulTemplate: Template.fromStack(beacon.stateful),
    statelessTemplate: Template.fromStack(beacon.stateless),
  };
}

/**
 * Beacon's acknowledgements of AwsSolutions findings: rule, reason, and the construct it was made on. (CDK records
 * acknowledgements of its own, of CloudFormation validation rules, in the same metadata; those are not Beacon's.)
 */
export function nagAcknowledgementsOf(app: App): { path: string; rule: string; reason: string }[] {
  return app.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
      .filter(([rule]) => rule.includes("AwsSolutions-"))
      .map(([rule, reason]) => ({
        path: construct.node.path,
        rule: rule.replace(/^Annotation::/, ""),
        reason,
      })),
  );
}

/**
 * The directory of a function's bundle in the cloud assembly: the asset its code points at. `logicalIdPrefix`
 * names the function as the stack does, e.g. "AgentApiFunction".
 */
export function bundleDirectoryOf(beacon: SynthesizedBeacon, logicalIdPrefix: string): string {
  const functions = beacon.statelessTemplate.findResources("AWS::Lambda::Function");
  const [resource] = Object.entries(functions).filter(([logicalId]) => logicalId.startsWith(logicalIdPrefix));
  const objectKey = (resource?.[1].Properties.Code as { S3Key?: string } | undefined)?.S3Key;
  if (objectKey === undefined) throw new Error(`No function ${logicalIdPrefix}* with bundled code`);
  return join(beacon.assembly.directory, `asset.${objectKey.replace(/\.zip$/, "")}`);
}

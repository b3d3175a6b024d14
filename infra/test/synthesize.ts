// Synthesizes variants of Beacon into cloud assembly directories, one after the other, in a process of its own:
// the infra tests' global setup runs it so that synthesis and bundling block no test worker.
// Usage: node --import tsx infra/test/synthesize.ts <assemblies directory> <variant>...
// Reports each variant's outcome to the parent through the IPC channel.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { App } from "aws-cdk-lib";
import { buildBeacon } from "../lib/beacon-app.js";
import { repositoryRoot } from "../lib/paths.js";
import { type BeaconVariant, beaconVariants } from "./variants.js";

export interface SynthesisOutcome {
  readonly variant: BeaconVariant;
  /** Why synthesis failed, e.g. the AwsSolutions findings no one acknowledged. */
  readonly error?: string;
}

/**
 * Synthesizes Beacon as `cdk synth` does: the context of cdk.json (feature flags and example agent domain) with
 * the variant's values on top. Throws on any AwsSolutions finding that is not acknowledged.
 */
function synthesizeBeacon(variant: BeaconVariant, outdir: string): void {
  const cdkJson = JSON.parse(readFileSync(join(repositoryRoot, "cdk.json"), "utf8"));
  const app = new App({ outdir, context: { ...cdkJson.context, ...beaconVariants[variant].context } });
  buildBeacon(app);
  app.synth();
}

const report = (outcome: SynthesisOutcome) =>
  new Promise<void>((resolve, reject) => {
    if (process.send === undefined)
      throw new Error("run by the infra tests' global setup, with an IPC channel");
    process.send(outcome, (error: Error | null) => (error ? reject(error) : resolve()));
  });

const [assembliesDir, ...variants] = process.argv.slice(2) as [string, ...BeaconVariant[]];
for (const variant of variants) {
  try {
    synthesizeBeacon(variant, join(assembliesDir, variant));
    await report({ variant });
  } catch (error) {
    await report({ variant, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
}
process.disconnect?.();

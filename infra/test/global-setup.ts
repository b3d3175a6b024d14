import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { repositoryRoot } from "../lib/paths.js";
import type { SynthesisOutcome } from "./synthesize.js";
import { type BeaconVariant, beaconVariantNames } from "./variants.js";

/** Where each variant's cloud assembly is, or why it could not be synthesized. */
export type BeaconAssemblies = Record<BeaconVariant, { directory: string } | { error: string }>;

declare module "vitest" {
  export interface ProvidedContext {
    beaconAssemblies: BeaconAssemblies;
  }
}

const synthesizeScript = fileURLToPath(new URL("./synthesize.ts", import.meta.url));

/**
 * Synthesizes every variant the infra tests look at once, before they run, into `.beacon/test-<pid>/cdk/`
 * (removed afterwards). Synthesis bundles the functions with esbuild and blocks for seconds per variant, so it
 * runs in child processes, one per core, and the tests only read the assemblies from disk.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const testRunDir = join(repositoryRoot, ".beacon", `test-${process.pid}`);
  const assembliesDir = join(testRunDir, "cdk");
  rmSync(assembliesDir, { recursive: true, force: true });
  mkdirSync(assembliesDir, { recursive: true });
  const processes = Math.min(availableParallelism(), beaconVariantNames.length);
  const shares = Array.from({ length: processes }, (_, index) =>
    beaconVariantNames.filter((_, position) => position % processes === index),
  );
  const outcomes = (await Promise.all(shares.map((share) => synthesize(assembliesDir, share)))).flat();
  project.provide(
    "beaconAssemblies",
    Object.fromEntries(
      outcomes.map(({ variant, error }) => [
        variant,
        error === undefined ? { directory: join(assembliesDir, variant) } : { error },
      ]),
    ) as BeaconAssemblies,
  );
  return () => {
    rmSync(assembliesDir, { recursive: true, force: true });
    // The integration tests' backends keep their state in the same folder; whoever finishes last removes it.
    if (existsSync(testRunDir) && readdirSync(testRunDir).length === 0) rmdirSync(testRunDir);
  };
}

/** Runs synthesize.ts on some variants; a variant it gave no outcome for failed with its output. */
async function synthesize(assembliesDir: string, variants: BeaconVariant[]): Promise<SynthesisOutcome[]> {
  const child = spawn(process.execPath, ["--import", "tsx", synthesizeScript, assembliesDir, ...variants], {
    cwd: repositoryRoot,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const outcomes: SynthesisOutcome[] = [];
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  child.on("message", (outcome: SynthesisOutcome) => outcomes.push(outcome));
  const exit = await new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve(`exited with ${code ?? signal}`));
  });
  const missing = variants.filter((variant) => !outcomes.some((outcome) => outcome.variant === variant));
  return [...outcomes, ...missing.map((variant) => ({ variant, error: `synthesis ${exit}:\n${output}` }))];
}

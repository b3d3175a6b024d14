/**
 * A function's handler as a deployment ships it, loaded into this process: its bundle, minified as the CDK app
 * bundles it (function-bundles.ts), imported with the environment in place, each call one invocation as the
 * local stack makes them. What Lambda bills is the bundle's CPU, not the source's as tsx compiles it (which keeps
 * every function's name with a wrapper of its own, unminified).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openTemporaryFunctionLog } from "../local/function-logs.js";
import type { FunctionModule } from "../local/function-routes.js";
import { invoker, type LocalFunction } from "../local/lambda-runtime.js";
import { bundleFunction } from "./function-bundles.js";
import { bundleSources, type OriginalFrame } from "./profile.js";

export interface DeployedHandler<Event, Result> {
  invoke(event: Event): Promise<Result>;
  /** Where a profile's frames in the bundle were written, through its source map. */
  sources: OriginalFrame;
  /** Shuts the function down (its clients' connections) and removes its bundle and log. */
  close(): Promise<void>;
}

/** Loads `fn`'s bundle; the environment the function reads at import must already be in place. */
export async function loadDeployedHandler<Event, Result>(
  fn: LocalFunction,
): Promise<DeployedHandler<Event, Result>> {
  const dir = mkdtempSync(path.join(tmpdir(), "beacon-deployed-"));
  const functionLog = openTemporaryFunctionLog();
  const remove = () => {
    functionLog.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const bundle = await bundleFunction(fn.name, path.join(dir, "bundles"));
    const loaded = (await import(bundle.file)) as FunctionModule<Event, Result>;
    return {
      invoke: invoker(fn, functionLog.log, loaded.handler),
      sources: bundleSources(bundle.file),
      async close() {
        await loaded.shutdown();
        remove();
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}

import type { MadeForDirectCalls } from "../../adapters/aws/call-settings.js";
import { DirectServices, madeForDirectCalls } from "./direct.js";
import { type ClientEnv, environmentNow } from "./environment.js";

/**
 * The notification bus's client for the stream consumer (adapters/eventbridge/notification-bus.ts). A module of
 * its own: esbuild makes a chunk of every dynamic import in a module a function bundles, called or not, and no
 * other function is to carry EventBridge's client.
 */
export const busForDirectCalls = (env: ClientEnv = environmentNow()): MadeForDirectCalls =>
  madeForDirectCalls(DirectServices.eventbridge, env, async () =>
    (await import("./eventbridge.js")).makeEventBridgeClient(env),
  );

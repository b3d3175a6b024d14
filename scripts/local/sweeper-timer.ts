import { randomUUID } from "node:crypto";
import type { ScheduledEvent } from "aws-lambda";
import type { WebhookTestOutcome } from "../../functions/core/webhooks/ports.js";
import { numberEnv } from "../../functions/shared/config.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { FunctionTimeouts, SWEEPER_INTERVAL_SECONDS } from "../../functions/shared/function-timeouts.js";
import type { FunctionLog } from "./function-logs.js";
import { type LocalInvokedFunction, loadFunction } from "./function-routes.js";

/**
 * The sweeper and the webhook dispatcher run once a minute, as their EventBridge schedules run them on AWS, unless
 * BEACON_SWEEPER_INTERVAL_SECONDS says otherwise (a few seconds makes a local rollout quick to watch).
 */
export const sweepIntervalSeconds = (): number =>
  numberEnv(process.env, EnvNames.sweeperIntervalSeconds, SWEEPER_INTERVAL_SECONDS);

/** A function a schedule runs: it is given the schedule's event; what it answers, if anything, is not read. */
type ScheduledFunction = LocalInvokedFunction<ScheduledEvent, unknown>;

/**
 * Loads the sweeper's handler module as Lambda would, on the backends in `env`, and runs it every minute (or as set),
 * never two runs at once, writing to `logs`. The returned function stops the timer, waits for a run in
 * progress, and closes the sweeper's connections.
 */
export async function startSweeperTimer(
  env: Record<string, string>,
  log: (line: string) => void,
  logs: FunctionLog,
): Promise<() => Promise<void>> {
  const sweeper = await loadFunction(
    { name: "sweeper", timeoutSeconds: FunctionTimeouts.sweeper },
    () => import("../../functions/sweeper/handler.js"),
    env,
    logs,
  );
  const stop = startScheduleTimer(sweeper, log);
  return async () => {
    await stop();
    await sweeper.shutdown();
  };
}

/**
 * The webhook dispatcher's handler module, loaded as Lambda would on the backends in `env`: the schedule runs it,
 * and the local Lambda endpoint invokes it with the console's tests.
 */
export const loadWebhookDispatcher = (
  env: Record<string, string>,
  logs: FunctionLog,
): Promise<LocalInvokedFunction<unknown, WebhookTestOutcome | undefined>> =>
  loadFunction(
    { name: "webhook-dispatcher", timeoutSeconds: FunctionTimeouts.webhookDispatcher },
    () => import("../../functions/webhook-dispatcher/handler.js"),
    env,
    logs,
  );

/**
 * Runs `fn` every minute (or as set), as its EventBridge schedule does on AWS, never two runs at once. The
 * returned function stops the timer and waits for a run in progress; closing the function is the caller's.
 */
export function startScheduleTimer(fn: ScheduledFunction, log: (line: string) => void): () => Promise<void> {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = fn
      .invoke(scheduledEvent(fn.name))
      .then(() => undefined)
      .catch((error: unknown) => log(`${fn.name}: run failed: ${(error as Error).message}`))
      .finally(() => {
        running = undefined;
      });
  }, sweepIntervalSeconds() * 1000);
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** What an EventBridge schedule sends on AWS (neither function reads any of it). */
export function scheduledEvent(rule: string): ScheduledEvent {
  return {
    version: "0",
    id: randomUUID(),
    "detail-type": "Scheduled Event",
    source: "aws.events",
    account: "000000000000",
    time: new Date().toISOString(),
    region: "local",
    resources: [`arn:aws:events:local:000000000000:rule/${rule}`],
    detail: {},
  };
}

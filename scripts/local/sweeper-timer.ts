import { randomUUID } from "node:crypto";
import type { Context, ScheduledEvent } from "aws-lambda";
import { numberEnv } from "../../functions/shared/config.js";
import { FunctionTimeouts } from "../../functions/shared/function-timeouts.js";
import type { FunctionLog } from "./function-logs.js";
import { invoker, setLocalLambdaEnvironment } from "./lambda-runtime.js";

/**
 * The sweeper and the webhook dispatcher run once a minute, as their EventBridge schedules run them on AWS, unless
 * BEACON_SWEEPER_INTERVAL_SECONDS says otherwise (a few seconds makes a local rollout quick to watch).
 */
export const sweepIntervalSeconds = (): number =>
  numberEnv(process.env, "BEACON_SWEEPER_INTERVAL_SECONDS", 60);

type ScheduledModule = {
  handler(event: ScheduledEvent, context: Context): Promise<void>;
  shutdown(): Promise<void>;
};

/**
 * Loads the sweeper's handler module as Lambda would, on the backends in `env`, and runs it every minute (or as set),
 * never two runs at once, writing to `logs`. The returned function stops the timer, waits for a run in
 * progress, and closes the sweeper's connections.
 */
export const startSweeperTimer = (
  env: Record<string, string>,
  log: (line: string) => void,
  logs: FunctionLog,
): Promise<() => Promise<void>> =>
  startScheduleTimer(
    { name: "sweeper", timeoutSeconds: FunctionTimeouts.sweeper },
    () => import("../../functions/sweeper/handler.js"),
    env,
    log,
    logs,
  );

/** The webhook dispatcher, run as the sweeper is: every minute (or as set), one run at a time. */
export const startWebhookDispatcherTimer = (
  env: Record<string, string>,
  log: (line: string) => void,
  logs: FunctionLog,
): Promise<() => Promise<void>> =>
  startScheduleTimer(
    { name: "webhook-dispatcher", timeoutSeconds: FunctionTimeouts.webhookDispatcher },
    () => import("../../functions/webhook-dispatcher/handler.js"),
    env,
    log,
    logs,
  );

async function startScheduleTimer(
  lambda: { name: string; timeoutSeconds: number },
  load: () => Promise<ScheduledModule>,
  env: Record<string, string>,
  log: (line: string) => void,
  logs: FunctionLog,
): Promise<() => Promise<void>> {
  // The module reads its configuration when first imported.
  setLocalLambdaEnvironment(logs);
  Object.assign(process.env, env);
  const loaded = await load();
  const invoke = invoker(lambda, logs, loaded.handler);
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = invoke(scheduledEvent(lambda.name))
      .catch((error: unknown) => log(`${lambda.name}: run failed: ${(error as Error).message}`))
      .finally(() => {
        running = undefined;
      });
  }, sweepIntervalSeconds() * 1000);
  return async () => {
    clearInterval(timer);
    await running;
    await loaded.shutdown();
  };
}

/** What an EventBridge schedule sends on AWS (neither function reads any of it). */
function scheduledEvent(rule: string): ScheduledEvent {
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

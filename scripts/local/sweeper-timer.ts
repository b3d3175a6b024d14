import { randomUUID } from "node:crypto";
import type { Context, ScheduledEvent } from "aws-lambda";
import { numberEnv } from "../../functions/shared/config.js";
import { FunctionTimeouts } from "../../functions/shared/function-timeouts.js";
import type { FunctionLog } from "./function-logs.js";
import { invoker, setLocalLambdaEnvironment } from "./lambda-runtime.js";

/**
 * The sweeper runs once a minute, as the EventBridge schedule runs it on AWS, unless
 * BEACON_SWEEPER_INTERVAL_SECONDS says otherwise (a few seconds makes a local rollout quick to watch).
 */
export const sweepIntervalSeconds = (): number =>
  numberEnv(process.env, "BEACON_SWEEPER_INTERVAL_SECONDS", 60);

type SweeperModule = {
  handler(event: ScheduledEvent, context: Context): Promise<void>;
  shutdown(): Promise<void>;
};

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
  // The module reads its configuration when first imported.
  setLocalLambdaEnvironment(logs);
  Object.assign(process.env, env);
  const sweeper = (await import("../../functions/sweeper/handler.js")) as SweeperModule;
  const invoke = invoker(
    { name: "sweeper", timeoutSeconds: FunctionTimeouts.sweeper },
    logs,
    sweeper.handler,
  );
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = invoke(scheduledEvent())
      .catch((error: unknown) => log(`sweeper: run failed: ${(error as Error).message}`))
      .finally(() => {
        running = undefined;
      });
  }, sweepIntervalSeconds() * 1000);
  return async () => {
    clearInterval(timer);
    await running;
    await sweeper.shutdown();
  };
}

/** What the EventBridge schedule sends the sweeper on AWS (the sweeper reads none of it). */
function scheduledEvent(): ScheduledEvent {
  return {
    version: "0",
    id: randomUUID(),
    "detail-type": "Scheduled Event",
    source: "aws.events",
    account: "000000000000",
    time: new Date().toISOString(),
    region: "local",
    resources: ["arn:aws:events:local:000000000000:rule/sweeper"],
    detail: {},
  };
}

import type { Context } from "aws-lambda";
import { webhookDeliveryConfig } from "../shared/config.js";
import { functionLogger, metrics } from "../shared/observability.js";
import { recordDeliveryReport } from "../shared/webhooks.js";
import { composeWebhookDispatcher } from "./composition.js";

const logger = functionLogger();
const config = webhookDeliveryConfig();
const composed = composeWebhookDispatcher(config);

/**
 * Runs once a minute (an EventBridge schedule on AWS, a timer in `npm start`) and retries the deliveries that
 * are due. It starts no attempt once less than a receiver's timeout and a margin are left, so a run ends
 * cleanly; what it did not get to is due still, for the next run.
 */
export async function handler(_event: unknown, context: Context): Promise<void> {
  logger.addContext(context);
  const deadline = Date.now() + context.getRemainingTimeInMillis() - config.timeoutMs - 5_000;
  try {
    const report = await composed.dispatcher.dispatch(deadline);
    recordDeliveryReport(report, logger, "retries");
    if (report.more) logger.warn("retries stopped at their bound; the rest wait for the next run");
  } finally {
    metrics.publishStoredMetrics();
  }
}

/** Closes the container's connections; the local stack calls it on shutdown, Lambda never needs to. */
export const shutdown = (): Promise<void> => composed.close();

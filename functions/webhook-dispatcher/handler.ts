import type { Context } from "aws-lambda";
import type { WebhookTestOutcome, WebhookTestRequest } from "../core/webhooks/ports.js";
import { webhookTestRequestOf } from "../core/webhooks/test-sender.js";
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
 *
 * The console API invokes it too, synchronously, with a subscription's test (`{"webhookTest": …}`), which it
 * posts at once and answers: the console runs in the VPC, which reaches no receiver. Only that function's role
 * may invoke it; the tenant in the request is the console's authenticated caller's.
 */
export async function handler(event: unknown, context: Context): Promise<WebhookTestOutcome | undefined> {
  logger.addContext(context);
  const test = webhookTestRequestOf(event);
  if (test) return postTest(test);
  await retryDue(context);
  return undefined;
}

async function postTest(request: WebhookTestRequest): Promise<WebhookTestOutcome> {
  const outcome = await composed.tester.test(request);
  const { tenant, subscriptionId } = request;
  logger.info("webhook test", { tenant, subscriptionId, ...(outcome.found ? outcome.response : outcome) });
  return outcome;
}

async function retryDue(context: Context): Promise<void> {
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

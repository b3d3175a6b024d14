import type { Clock } from "../core/ports.js";
import { makeWebhookDispatcher } from "../core/webhooks/delivery.js";
import { makeWebhookTestSender } from "../core/webhooks/test-sender.js";
import { documentsForDirectCalls } from "../runtime/aws-clients/direct.js";
import { composeWebhookDependencies, makeWebhookSender } from "../runtime/webhook-delivery.js";
import type { WebhookDeliveryConfig } from "../shared/config.js";
import { WebhookTestTimeouts } from "../shared/webhooks.js";

/**
 * A run's retries: 500 at most, 16 at a time. A receiver that never answers holds one of the 16 for the
 * sender's timeout, so even a run of dead receivers gets through 16 × 3 rounds in its time; a backlog (a
 * receiver back after an outage) drains over the next minutes.
 */
const DISPATCH = { maxPerRun: 500, concurrency: 16 };

/**
 * Wires the dispatcher to the table, the stream and HTTPS, and the tests it posts for the console with a sender
 * of their own that gives up within the console's time; called once per container. Tests pass a clock.
 */
export function composeWebhookDispatcher(config: WebhookDeliveryConfig, clock?: Clock) {
  const documents = documentsForDirectCalls();
  const delivering = composeWebhookDependencies(config, documents, config.timeoutMs, clock);
  const testSender = makeWebhookSender(config, Math.min(config.timeoutMs, WebhookTestTimeouts.receiverMs));
  return {
    dispatcher: makeWebhookDispatcher(delivering, DISPATCH),
    tester: makeWebhookTestSender({
      subscriptions: delivering.subscriptions,
      sender: testSender,
      clock: delivering.clock,
    }),
    close: async () => {
      delivering.close();
      testSender.close();
      documents.destroy();
    },
  };
}

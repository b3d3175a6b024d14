import type { Logger } from "@aws-lambda-powertools/logger";
import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { DeliveryReport } from "../core/webhooks/delivery.js";
import { FunctionTimeouts } from "./function-timeouts.js";
import { MetricNames, metrics, reportStreamFailure } from "./observability.js";

/**
 * A subscription's test answers within the console API's own time: the dispatcher gives up on the receiver after
 * half of it, and the console on the dispatcher three seconds later (room for a cold start outside the VPC).
 */
export const WebhookTestTimeouts = {
  receiverMs: (FunctionTimeouts.consoleApi * 1000) / 2,
  invocationMs: (FunctionTimeouts.consoleApi * 1000) / 2 + 3_000,
} as const;

/** A run's deliveries as metrics, and its troubles in the log. */
export function recordDeliveryReport(report: DeliveryReport, logger: Logger, what: string): void {
  metrics.addMetric(MetricNames.webhookDeliveries, MetricUnit.Count, report.delivered);
  metrics.addMetric(MetricNames.webhookFailures, MetricUnit.Count, report.failed);
  metrics.addMetric(MetricNames.webhooksDisabled, MetricUnit.Count, report.disabled);
  reportStreamFailure(logger, report.streamError, "webhook.disabled events");
  const { streamError: _error, ...counts } = report;
  if (report.disabled > 0) logger.warn(`${what}: subscriptions disabled`, counts);
  else if (report.leftOver > 0) logger.info(`${what}: deliveries left for later`, counts);
}

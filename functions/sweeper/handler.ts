import { MetricUnit } from "@aws-lambda-powertools/metrics";
import { sweeperConfig } from "../shared/config.js";
import { logger, MetricNames, metrics } from "../shared/observability.js";
import { composeSweeper } from "./composition.js";

const sweeper = composeSweeper(sweeperConfig());

/**
 * Runs once a minute (an EventBridge schedule on AWS, a timer in `npm start`); the event carries nothing
 * it needs. A failure throws, so the function's error alarm sees it; the next run picks up where it stopped.
 */
export async function handler(): Promise<void> {
  try {
    const outcome = await sweeper.sweepTimeouts();
    const timedOut = outcome.timedOut.queued + outcome.timedOut.delivered;
    metrics.addMetric(MetricNames.operationsTimedOut, MetricUnit.Count, timedOut);
    metrics.addMetric(MetricNames.operationsCancelled, MetricUnit.Count, outcome.cancelled);
    if (outcome.streamError !== undefined) {
      metrics.addMetric(MetricNames.streamFailures, MetricUnit.Count, 1);
      logger.error("events of timed-out operations not put on the stream", {
        error: String(outcome.streamError),
      });
    }
    const summary = {
      timedOutQueued: outcome.timedOut.queued,
      timedOutDelivered: outcome.timedOut.delivered,
      cancelled: outcome.cancelled,
      postponed: outcome.postponed,
      skipped: outcome.skipped,
    };
    if (outcome.more) logger.warn("sweep stopped at its bound; the rest waits for the next run", summary);
    else if (timedOut > 0 || outcome.postponed > 0) logger.info("sweep done", summary);
  } finally {
    metrics.publishStoredMetrics();
  }
}

/** Closes the container's connections; the local stack calls it on shutdown, Lambda never needs to. */
export const shutdown = (): Promise<void> => sweeper.close();

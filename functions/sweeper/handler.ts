import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { Context } from "aws-lambda";
import type { RolloutState } from "../core/events/model.js";
import { sweeperConfig } from "../shared/config.js";
import { fleetMetricDocuments } from "../shared/fleet-metrics-emf.js";
import { functionLogger, MetricNames, metrics, reportStreamFailure } from "../shared/observability.js";
import { composeSweeper } from "./composition.js";

const logger = functionLogger();
const config = sweeperConfig();
const sweeper = composeSweeper(config);

/**
 * The states a rollout's run may reach, each counted by a metric of its own; a scheduled rollout the run
 * could not start (refused) is in the log's summary.
 */
const reachedMetrics: Record<
  Exclude<
    RolloutState,
    "awaiting_approval" | "scheduled" | "canary" | "rolling" | "following" | "rolling_back" | "refused"
  >,
  string
> = {
  completed: MetricNames.rolloutsCompleted,
  rolled_back: MetricNames.rolloutsRolledBack,
  aborted: MetricNames.rolloutsAborted,
  paused: MetricNames.rolloutsPaused,
};

async function sweepOperations(): Promise<void> {
  const outcome = await sweeper.sweepTimeouts();
  const timedOut = outcome.timedOut.queued + outcome.timedOut.delivered + outcome.timedOut.awaiting_effect;
  metrics.addMetric(MetricNames.operationsTimedOut, MetricUnit.Count, timedOut);
  metrics.addMetric(MetricNames.operationsCancelled, MetricUnit.Count, outcome.cancelled);
  reportStreamFailure(logger, outcome.streamError, "events of timed-out operations");
  const summary = {
    timedOutQueued: outcome.timedOut.queued,
    timedOutDelivered: outcome.timedOut.delivered,
    timedOutAwaitingEffect: outcome.timedOut.awaiting_effect,
    cancelled: outcome.cancelled,
    postponed: outcome.postponed,
    released: outcome.released,
    skipped: outcome.skipped,
  };
  if (outcome.more) logger.warn("sweep stopped at its bound; the rest waits for the next run", summary);
  else if (timedOut > 0 || outcome.postponed > 0 || outcome.released > 0) logger.info("sweep done", summary);
}

/** One look at every active rollout; a look that failed is logged, and fails the step once all were taken. */
async function advanceRollouts(deadline: number): Promise<void> {
  const outcome = await sweeper.rollouts.advanceAll(deadline);
  metrics.addMetric(MetricNames.rolloutBatchesStarted, MetricUnit.Count, outcome.batchesStarted);
  for (const [state, metricName] of Object.entries(reachedMetrics))
    metrics.addMetric(metricName, MetricUnit.Count, outcome.reached[state as RolloutState] ?? 0);
  reportStreamFailure(logger, outcome.streamError, "events of rollouts");
  // The cache holds the agents' health and takes a batch's pending markers: without it, rollouts wait.
  if (outcome.heldBack > 0) {
    metrics.addMetric(MetricNames.cacheFallbacks, MetricUnit.Count, outcome.heldBack);
    logger.warn("rollouts held back: the cache is unreachable", { heldBack: outcome.heldBack });
  }
  const summary = {
    looked: outcome.looked,
    started: outcome.started,
    batchesStarted: outcome.batchesStarted,
    reached: outcome.reached,
    failed: outcome.errors.length,
    deferred: outcome.deferred,
  };
  if (outcome.deferred > 0)
    logger.warn("rollouts left for the next run: the run reached its deadline", summary);
  if (Object.keys(outcome.reached).length > 0 || outcome.started > 0)
    logger.info("rollouts reached a state", summary);
  for (const { tenant, rolloutId, error } of outcome.errors)
    logger.error("rollout look failed", { tenant, rolloutId, error: error as Error });
  if (outcome.errors.length > 0) throw new Error("rollouts failed to advance");
}

/**
 * One look at every adoption still requested: those whose bundle arrived, or whose TRANSFER DEBUG ended without
 * one, settle. A look that failed is logged, and fails the step once all were taken; the next run looks again.
 */
async function settleAdoptions(deadline: number): Promise<void> {
  const { errors, ...counts } = await sweeper.adoptions.sweep(deadline);
  const summary = { ...counts, lookFailures: errors.length };
  if (counts.deferred > 0)
    logger.warn("adoptions left for the next run: the run reached its deadline", summary);
  if (counts.adopted + counts.failed > 0) logger.info("adoptions settled", summary);
  for (const { adoption, error } of errors)
    logger.error("adoption look failed", { ...adoption, error: error as Error });
  if (errors.length > 0) throw new Error("adoptions failed to settle");
}

/** Certificates entering the expiry window, each announced once as a `certificate.expiring` event. */
async function announceExpiringCertificates(): Promise<void> {
  const outcome = await sweeper.announceExpiringCertificates();
  metrics.addMetric(MetricNames.certificatesExpiring, MetricUnit.Count, outcome.announced);
  reportStreamFailure(logger, outcome.streamError, "certificate expiry events");
  if (outcome.more) logger.warn("expiry notices stopped at their bound; the rest wait for the next run");
  else if (outcome.announced > 0)
    logger.info("certificates announced as expiring", { announced: outcome.announced });
}

/** Agents silent for three heartbeat periods, each announced once per outage as an `agent.offline` event. */
async function announceOfflineAgents(deadline: number): Promise<void> {
  const outcome = await sweeper.offline.sweep(deadline);
  metrics.addMetric(MetricNames.agentsWentOffline, MetricUnit.Count, outcome.announced);
  reportStreamFailure(logger, outcome.streamError, "agent offline events");
  if (outcome.more) logger.warn("offline notices stopped at their bound; the rest wait for the next run");
  else if (outcome.announced > 0) logger.info("agents announced offline", { announced: outcome.announced });
}

/**
 * Agents silent longer than their class's clean-up age (or the tenant's default), each decommissioned once
 * and announced as an `agent.decommissioned` event; after the offline step, which files the outages it reads.
 */
async function cleanUpSilentAgents(deadline: number): Promise<void> {
  const outcome = await sweeper.cleanUp.sweep(deadline);
  metrics.addMetric(MetricNames.agentsDecommissioned, MetricUnit.Count, outcome.decommissioned);
  reportStreamFailure(logger, outcome.streamError, "agent decommissioned events");
  const summary = { decommissioned: outcome.decommissioned, cameBack: outcome.cameBack };
  if (outcome.more) logger.warn("clean-up stopped at its bound; the rest wait for the next run", summary);
  else if (outcome.decommissioned > 0) logger.info("silent agents decommissioned", summary);
}

/** Each tenant's groups counted by its counting pass when due, a bounded step a run. */
async function countGroups(deadline: number): Promise<void> {
  const outcome = await sweeper.countGroups(deadline);
  if (outcome.more) logger.info("group counting passes go on in the next run", { ...outcome });
  else if (outcome.passesEnded > 0) logger.info("groups counted", { ...outcome });
}

/** Operation events their writers staged but did not put on the stream, put there now. */
async function relayStagedEvents(): Promise<void> {
  const outcome = await sweeper.relayStaged();
  metrics.addMetric(MetricNames.outboxRelayed, MetricUnit.Count, outcome.relayed);
  if (outcome.relayed > 0)
    logger.warn("staged events put on the stream by the relay: their writers could not", { ...outcome });
}

/**
 * Events the stream did not take, held in the cache's buffer or, failing it, in the outbox, put on it now that
 * it may: a bounded batch at a time until both are empty or the run's deadline, so an outage's backlog drains
 * within a few runs.
 */
async function relayHeldEvents(deadline: number): Promise<void> {
  let relayed = 0;
  for (let more = true; more && Date.now() < deadline; ) {
    const outcome = await sweeper.relayHeld();
    relayed += outcome.relayed;
    more = outcome.more;
  }
  metrics.addMetric(MetricNames.heldEventsRelayed, MetricUnit.Count, relayed);
  if (relayed > 0) logger.warn("held events put on the stream", { relayed });
}

/** A step at a time of every running selection job, bounded per run; a job that failed is logged. */
async function continueSelections(deadline: number): Promise<void> {
  const { errors, streamError, ...counts } = await sweeper.continueSelections(deadline);
  reportStreamFailure(logger, streamError, "events of selection jobs' operations");
  if (counts.deferred > 0)
    logger.warn("selection jobs left for the next run: the run reached its bound", counts);
  if (counts.steps > 0) logger.info("selection jobs continued", counts);
  for (const { tenant, selectionId, error } of errors)
    logger.error("selection job step failed", { tenant, selectionId, error: error as Error });
  if (errors.length > 0) throw new Error("selection jobs failed to continue");
}

/**
 * Each tenant's fleet series (those its metrics endpoint answers) to CloudWatch, as Embedded Metric Format log
 * lines that CloudWatch Logs turns into metrics with the Tenant and Class dimensions (docs/metrics.md). A
 * tenant whose series cannot be read is logged and passed over; the next run writes it again.
 */
async function publishFleetMetrics(deadline: number): Promise<void> {
  if (!config.fleetMetricsToCloudWatch) return;
  let published = 0;
  const tenants = await sweeper.tenants();
  for (const tenant of tenants) {
    if (Date.now() >= deadline) break;
    try {
      const { families } = await sweeper.fleetSeries(tenant);
      for (const document of fleetMetricDocuments(tenant, families, Date.now()))
        process.stdout.write(`${JSON.stringify(document)}\n`);
      published++;
    } catch (error) {
      logger.error("fleet metrics not read", { tenant, error: error as Error });
    }
  }
  if (published < tenants.length)
    logger.warn("fleet metrics of some tenants not written this run", { published, tenants: tenants.length });
}

/**
 * Each tenant's snapshot of what it stores (docs/usage.md), once a day: the first run of the day lists each
 * tenant's stores, later runs find the day taken and read nothing. A tenant whose stores cannot be read is
 * logged and passed over; the next run tries again.
 */
async function snapshotStoredUsage(deadline: number): Promise<void> {
  let taken = 0;
  let failed = 0;
  for (const tenant of await sweeper.snapshotTenants()) {
    if (Date.now() >= deadline) break;
    try {
      if ((await sweeper.takeStoredSnapshot(tenant)) === "taken") taken++;
    } catch (error) {
      failed++;
      logger.error("stored usage not read", { tenant, error: error as Error });
    }
  }
  if (taken > 0 || failed > 0) logger.info("stored usage snapshots taken", { taken, failed });
}

/** The held events' relay goes last: a large backlog takes what is left of the run, never another step's turn. */
const steps: Record<string, (deadline: number) => Promise<void>> = {
  outbox: relayStagedEvents,
  operations: sweepOperations,
  rollouts: advanceRollouts,
  adoptions: settleAdoptions,
  selections: continueSelections,
  certificates: announceExpiringCertificates,
  offline: announceOfflineAgents,
  cleanUp: cleanUpSilentAgents,
  groups: countGroups,
  fleetMetrics: publishFleetMetrics,
  storedUsage: snapshotStoredUsage,
  buffer: relayHeldEvents,
};
/** Time kept free at the end of a run for the look in progress and the metrics. */
const LOOK_MARGIN_MS = 15_000;

/**
 * Runs once a minute (an EventBridge schedule on AWS, a timer in `npm start`); the event carries nothing
 * it needs. The steps are independent, so one failing does not hold the other up; a failure throws once
 * both ran and the metrics are out, so the function's error alarm sees it. The next run picks up where
 * this one stopped.
 */
export async function handler(_event: unknown, context: Context): Promise<void> {
  logger.addContext(context);
  // Rollout looks stop starting this long before the function's timeout, so a run ends cleanly.
  const deadline = Date.now() + context.getRemainingTimeInMillis() - LOOK_MARGIN_MS;
  let failed = false;
  for (const [step, run] of Object.entries(steps)) {
    try {
      await run(deadline);
    } catch (error) {
      failed = true;
      logger.error("sweeper step failed", { step, error: error as Error });
    }
  }
  metrics.publishStoredMetrics();
  if (failed) throw new Error("a sweeper step failed; its error is logged");
}

/** Closes the container's connections; the local stack calls it on shutdown, Lambda never needs to. */
export const shutdown = (): Promise<void> => sweeper.close();

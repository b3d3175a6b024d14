import type { BeaconEvent } from "../events/model.js";
import type { StreamRecord } from "../events/ports.js";
import { type CountedContribution, withFreshContributions } from "./counted.js";
import {
  type BucketKey,
  bucketId,
  type HistoryBucket,
  type HistoryCounter,
  HistoryCounters,
  MINUTE_MS,
  OperationStateCounters,
  WHOLE_FLEET,
} from "./model.js";

/** What one record adds to one bucket. */
export type Contribution = CountedContribution<HistoryCounter>;

/** The records of one batch that fall in one bucket, in stream order within each shard. */
export interface BucketBatch {
  key: BucketKey;
  contributions: Contribution[];
}

/**
 * What an event counts, and in which classes' buckets besides the whole fleet's. Acknowledgements count
 * through the operation events they cause.
 */
function countsOf(
  event: BeaconEvent,
): { agentClass?: string; counts: Contribution["counts"]; agentId?: string } | undefined {
  switch (event.type) {
    case "heartbeat":
      return {
        agentClass: event.agentClass,
        agentId: event.agentId,
        counts: {
          heartbeats: 1,
          registrations: event.firstSight ? 1 : 0,
          // Events from before Beacon told new bulletins apart count what they listed.
          errorBulletins: event.newErrorBulletins ?? event.status?.errorBulletins ?? 0,
        },
      };
    case "operation": {
      const counter = (OperationStateCounters as Partial<Record<string, HistoryCounter>>)[event.state];
      return counter === undefined ? undefined : { agentClass: event.agentClass, counts: { [counter]: 1 } };
    }
    case "rollout":
      return { agentClass: event.className, counts: { rolloutTransitions: 1 } };
    case "agent.offline":
      return { agentClass: event.agentClass, counts: { agentsWentOffline: 1 } };
    case "agent.online":
      return { agentClass: event.agentClass, counts: { agentsCameOnline: 1 } };
    default:
      return undefined;
  }
}

/** The batch's records grouped by the buckets they count in: their tenant's class and whole fleet, by minute. */
export function bucketsOf(records: StreamRecord[]): BucketBatch[] {
  const buckets = new Map<string, BucketBatch>();
  for (const { shard, position, event } of records) {
    const counted = countsOf(event);
    if (!counted) continue;
    const minute = Math.floor(event.at / MINUTE_MS);
    const classes = counted.agentClass === undefined ? [WHOLE_FLEET] : [WHOLE_FLEET, counted.agentClass];
    for (const agentClass of classes) {
      const key = { tenant: event.tenant, agentClass, minute };
      const id = bucketId(key);
      const bucket = buckets.get(id) ?? { key, contributions: [] };
      bucket.contributions.push({ shard, position, counts: counted.counts, agentId: counted.agentId });
      buckets.set(id, bucket);
    }
  }
  return [...buckets.values()];
}

/**
 * The bucket once the batch's records it has not counted yet are added (freshAmong). Undefined when it has
 * counted every one, so that a redelivered batch, however split, writes nothing.
 */
export function applyBatch(stored: HistoryBucket | undefined, batch: BucketBatch): HistoryBucket | undefined {
  const counted = withFreshContributions(HistoryCounters, stored, batch.contributions);
  return counted && { ...batch.key, ...counted };
}

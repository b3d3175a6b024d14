import type { EventConsumer, StreamRecord } from "../events/ports.js";
import { agentLogKey, keptForAgent } from "./agent-log.js";
import { applyBatch, bucketsOf } from "./aggregate.js";
import type { AgentEventLog, FleetHistoryStore, UsageStore } from "./ports.js";
import { applyUsage, usageBatchesOf } from "./usage.js";

/**
 * Fleet history and the agents' event logs, from the stream. Each batch's records are counted once per
 * bucket in one conditional write (aggregate.ts says how a redelivery is recognised); the agents' events are
 * kept by their ids, so writing one again changes nothing. A failure rejects, and the batch comes again.
 * It needs each shard's batches one at a time and in order (a Kinesis event source mapping with a
 * ParallelizationFactor of 1): a later batch applied first would make an earlier one look counted.
 */
export function makeHistoryConsumer(deps: {
  history: FleetHistoryStore;
  agentEvents: AgentEventLog;
}): EventConsumer {
  const { history, agentEvents } = deps;
  return {
    name: "fleet-history",
    async consume(records: StreamRecord[]) {
      const kept = new Map(
        records
          .map((record) => record.event)
          .filter(keptForAgent)
          .map((event) => [`${event.tenant}/${event.agentId}/${agentLogKey(event)}`, event]),
      );
      await Promise.all([
        ...bucketsOf(records).map((batch) =>
          history.update(batch.key, (stored) => applyBatch(stored, batch)),
        ),
        kept.size > 0 ? agentEvents.add([...kept.values()]) : Promise.resolve(),
      ]);
    },
  };
}

/**
 * Each tenant's usage by hour, from the stream: one conditional write per tenant and hour a batch touches,
 * counted once however often the stream delivers its records, as fleet history is (applyUsage). It needs
 * each shard's batches one at a time and in order, as fleet history does.
 */
export function makeUsageConsumer(usage: UsageStore): EventConsumer {
  return {
    name: "usage",
    async consume(records: StreamRecord[]) {
      await Promise.all(
        usageBatchesOf(records).map((batch) =>
          usage.update(batch.key, (stored) => applyUsage(stored, batch)),
        ),
      );
    },
  };
}

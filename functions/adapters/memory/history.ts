import { type AgentLogEvent, agentLogKey } from "../../core/history/agent-log.js";
import { type BucketKey, bucketId, type HistoryBucket } from "../../core/history/model.js";
import type { AgentEventLog, FleetHistoryStore } from "../../core/history/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { pageOf } from "./paging.js";

/**
 * Buckets with a version, written only over the version read, with a turn of the event loop in between: two
 * updates of one bucket at once race here as they do on the table, and the loser asks its change again.
 */
export class MemoryFleetHistory implements FleetHistoryStore {
  readonly buckets = new Map<string, { bucket: HistoryBucket; version: number }>();
  writes = 0;

  async update(key: BucketKey, change: (stored: HistoryBucket | undefined) => HistoryBucket | undefined) {
    const id = bucketId(key);
    for (;;) {
      const read = this.buckets.get(id);
      const next = change(read && structuredClone(read.bucket));
      if (!next) return;
      await Promise.resolve();
      if (this.buckets.get(id)?.version !== read?.version) continue;
      this.writes++;
      this.buckets.set(id, { bucket: structuredClone(next), version: (read?.version ?? 0) + 1 });
      return;
    }
  }

  async read(tenant: string, agentClass: string, fromMinute: number, toMinute: number) {
    return [...this.buckets.values()]
      .map(({ bucket }) => bucket)
      .filter(
        (bucket) =>
          bucket.tenant === tenant &&
          bucket.agentClass === agentClass &&
          bucket.minute >= fromMinute &&
          bucket.minute < toMinute,
      )
      .sort((a, b) => a.minute - b.minute)
      .map((bucket) => structuredClone(bucket));
  }
}

export class MemoryAgentEventLog implements AgentEventLog {
  readonly events = new Map<string, Map<string, AgentLogEvent>>();

  async add(events: AgentLogEvent[]) {
    for (const event of events) {
      const id = `${event.tenant}/${event.agentId}`;
      const log = this.events.get(id) ?? new Map<string, AgentLogEvent>();
      log.set(agentLogKey(event), structuredClone(event));
      this.events.set(id, log);
    }
  }

  async list(tenant: string, agentId: string, request: PageRequest) {
    return pageOf([...(this.events.get(`${tenant}/${agentId}`) ?? new Map()).entries()], request);
  }
}

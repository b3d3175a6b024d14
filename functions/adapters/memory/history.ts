import { type AgentLogEvent, agentLogKey } from "../../core/history/agent-log.js";
import { type BucketKey, bucketId, type HistoryBucket, zeroCounts } from "../../core/history/model.js";
import type { AgentEventLog, FleetHistoryStore } from "../../core/history/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { pageOf } from "./paging.js";
import { VersionedItems } from "./versioned-items.js";

/** Buckets updated over the version read, racing as they do on the table (VersionedItems). */
export class MemoryFleetHistory extends VersionedItems<HistoryBucket> implements FleetHistoryStore {
  async update(key: BucketKey, change: (stored: HistoryBucket | undefined) => HistoryBucket | undefined) {
    await this.updateItem(bucketId(key), change);
  }

  async read(tenant: string, agentClass: string, fromMinute: number, toMinute: number) {
    return this.select(
      (bucket) =>
        bucket.tenant === tenant &&
        bucket.agentClass === agentClass &&
        bucket.minute >= fromMinute &&
        bucket.minute < toMinute,
      (a, b) => a.minute - b.minute,
    );
  }

  async countsInMinute(tenant: string, agentClasses: string[], minute: number) {
    const counts = async (agentClass: string) =>
      (await this.read(tenant, agentClass, minute, minute + 1))[0]?.counts ?? zeroCounts();
    return new Map(await Promise.all(agentClasses.map(async (name) => [name, await counts(name)] as const)));
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

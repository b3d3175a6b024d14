import type { Page, PageRequest } from "../paging.js";
import type { AgentLogEvent } from "./agent-log.js";
import type { BucketKey, HistoryBucket, HistoryCounts } from "./model.js";
import type { StoredSnapshot } from "./stored.js";
import type { UsageHour, UsageHourKey } from "./usage.js";

export interface FleetHistoryStore {
  /**
   * Replaces the bucket with what `change` makes of it as stored, atomically: when another writer changed it
   * in between, it is read again and `change` asked again. `change` answers undefined to leave it as it is.
   */
  update(
    key: BucketKey,
    change: (stored: HistoryBucket | undefined) => HistoryBucket | undefined,
  ): Promise<void>;
  /** One class's buckets (or the whole fleet's) from `fromMinute` up to, not including, `toMinute`, by minute. */
  read(tenant: string, agentClass: string, fromMinute: number, toMinute: number): Promise<HistoryBucket[]>;
  /** The counts of one minute of each of these classes (zeros where none was kept): one read per 100 classes. */
  countsInMinute(tenant: string, agentClasses: string[], minute: number): Promise<Map<string, HistoryCounts>>;
}

export interface AgentEventLog {
  /** Keeps each event once, by its id, however often it is added. */
  add(events: AgentLogEvent[]): Promise<void>;
  /** One agent's events, newest first when `descending`; `last` continues after the last one returned. */
  list(tenant: string, agentId: string, request: PageRequest): Promise<Page<AgentLogEvent>>;
}

export interface UsageStore {
  /**
   * Replaces the tenant's hour with what `change` makes of it as stored, atomically: when another writer
   * changed it in between, it is read again and `change` asked again. `change` answers undefined to leave it.
   */
  update(key: UsageHourKey, change: (stored: UsageHour | undefined) => UsageHour | undefined): Promise<void>;
  /** The tenant's hours from `fromHour` up to, not including, `toHour`, by hour; hours without usage absent. */
  read(tenant: string, fromHour: number, toHour: number): Promise<UsageHour[]>;
  /** Keeps the tenant's snapshot of its day unless that day has one: true when this one was kept. */
  keepStored(snapshot: StoredSnapshot): Promise<boolean>;
  /** The tenant's snapshots from `fromDay` up to, not including, `toDay`, by day; days without one absent. */
  readStored(tenant: string, fromDay: number, toDay: number): Promise<StoredSnapshot[]>;
  /**
   * Keeps the tenant among those the daily snapshot reads beside the tenants the cache indexes (which a cache
   * lost forgets, and which never held a tenant without agents), noting that it was remembered `at`.
   */
  rememberTenant(tenant: string, at: number): Promise<void>;
  /** Drops the tenant from them, unless it was remembered at or after `rememberedBefore`. */
  forgetTenant(tenant: string, rememberedBefore: number): Promise<void>;
  /** The tenants remembered, in no order. */
  rememberedTenants(): Promise<string[]>;
}

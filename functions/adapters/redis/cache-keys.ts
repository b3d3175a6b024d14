import type { CachedAttentionReason } from "../../core/agents/attention.js";

/**
 * Every key of a tenant carries the tenant as its hash tag, so all of a tenant's keys share one cluster
 * slot (ElastiCache Serverless runs in cluster mode, where a script or transaction may only touch keys of
 * one slot). Per tenant, not per agent: one heartbeat's script reads the tenant's revocation list, class
 * index and class flow policy beside the agent's own keys, and every console read
 * spans a tenant's agents. The price is that a tenant lives on one shard (see "Hot state" in docs/agents.md).
 */
export const CacheKeys = {
  agent: (tenant: string, agentId: string) => `{t:${tenant}}:agent:${agentId}`,
  /** The canonical identities of the binaries whose content the tenant's manifest store holds (a set). */
  storedManifests: (tenant: string) => `{t:${tenant}}:manifest-ids`,
  classes: (tenant: string) => `{t:${tenant}}:classes`,
  /** The class's agents by last seen (a sorted set scored by time). */
  classIndex: (tenant: string, className: string) => `{t:${tenant}}:class-seen:${className}`,
  /**
   * The class's agents that need attention for one of the reasons the cache keeps (attention.ts), a sorted
   * set: errorBulletins scored by until when the bulletins hold, the others by since when.
   */
  attention: (tenant: string, className: string, reason: CachedAttentionReason) =>
    `{t:${tenant}}:attention:${reason}:${className}`,
  /** The agent's load samples of its latest heartbeats, newest first (a list, load-samples.ts). */
  loadSamples: (tenant: string, agentId: string) => `{t:${tenant}}:load:${agentId}`,
  revokedSerials: (tenant: string) => `{t:${tenant}}:revoked`,
  heartbeatsInMinute: (tenant: string, epochMinute: number) => `{t:${tenant}}:heartbeats:${epochMinute}`,
  /** The heartbeats the agent API ever took from the tenant's agents of each class (a hash: class to count). */
  heartbeatTotals: (tenant: string) => `{t:${tenant}}:heartbeat-totals`,
  /**
   * The version of the tenant's groups a container's copy of them was read at (group-values.ts): replaced by
   * every change of a group holding parameter values, set by the first sighting of an agent to register
   * while it is absent.
   */
  groupsVersion: (tenant: string) => `{t:${tenant}}:groups-version`,
  /** Present while operations may be queued for the agent; its value is a version, bumped on each queueing. */
  pendingOperations: (tenant: string, agentId: string) => `{t:${tenant}}:pending:${agentId}`,
  /**
   * The class's flow policy (fields target, accepted, ackTimeoutMs; only loaded when it has none) and the
   * heartbeat period its agents are held to unless they state their own (heartbeatPeriodMs).
   */
  classFlow: (tenant: string, className: string) => `{t:${tenant}}:class-flow:${className}`,
  /** Present while a catch-up sent to the agent holds off the next one; its value is the flow sent. */
  catchUp: (tenant: string, agentId: string) => `{t:${tenant}}:catch-up:${agentId}`,
  /** The agents the sweeper announced offline (a hash: agent id to its last seen then); a heartbeat clears one. */
  offlineMarks: (tenant: string) => `{t:${tenant}}:offline`,
  /**
   * The agents not announced offline, by when they become overdue (a sorted set scored by time): their last
   * heartbeat plus three of their heartbeat periods, or, restarting, their restart's deadline plus those.
   */
  offlineDue: (tenant: string) => `{t:${tenant}}:offline-due`,
  /**
   * What the offline sweep tells of each agent of offlineDue (a hash: agent id to
   * "<heartbeat period ms>:<last seen>:<class>"; a class name holds no colon, class-name.ts).
   */
  offlineDueAgents: (tenant: string) => `{t:${tenant}}:offline-due-agents`,
  /**
   * Per class, how far the one-off scheduling of the agents silent since before Beacon scheduled agents at
   * each heartbeat read the class index: "<score>:<entries at that score>", or "done".
   */
  offlineScheduling: (tenant: string) => `{t:${tenant}}:offline-scheduling`,
  /**
   * The agents restarting for an operation Beacon delivered (a hash: agent id to when the restart should be
   * over); a heartbeat clears one.
   */
  restarts: (tenant: string) => `{t:${tenant}}:restarts`,
  /**
   * The tenants whose agents the class indexes hold, for the sweeper. The one key of no tenant: only ever
   * read or written alone, never in a script or transaction with a tenant's keys.
   */
  tenantsWithClasses: () => "beacon:tenants",
  /** The tenants whose silent agents were all scheduled (offlineScheduling); no tenant's, only touched alone. */
  tenantsScheduled: () => "beacon:offline-scheduled",
  /**
   * Events the stream did not take, held for it (a list, oldest first), per stream: no tenant's, and only ever
   * touched alone or with heldEventsByTenant.
   */
  heldEvents: (streamName: string) => `beacon:held-events:${streamName}`,
  /**
   * How many events each tenant has in heldEvents (a hash: tenant to count), which the buffer's scripts touch
   * with the list: its hash tag is the whole of the list's key, which has none, so both are in one slot.
   */
  heldEventsByTenant: (streamName: string) => `{beacon:held-events:${streamName}}:tenants`,
} as const;

/** Keys Beacon wrote once and no longer reads, with no time to live: deleted where the change that retired them runs once. */
export const RetiredCacheKeys = {
  /** The offline sweep's before the per-tenant schedule: its cursor per class and its restarts passed per class. */
  offlineSweep: (tenant: string, classNames: string[]) => [
    `{t:${tenant}}:offline-cursor`,
    ...classNames.map((className) => `{t:${tenant}}:restarts-passed:${className}`),
  ],
} as const;

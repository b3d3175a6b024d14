import { type DocumentClient, directCalls } from "./direct-calls.js";

/** The sort key prefix of one rollout batch's members: zero-padded, so that string order is batch order. */
const rolloutBatchPrefix = (batch: number) => `M#${String(batch).padStart(6, "0")}#`;

const historyMinute = (minute: number) => `M#${String(minute).padStart(10, "0")}`;

const usageHour = (hour: number) => `H#${String(hour).padStart(8, "0")}`;

const usageDay = (day: number) => `D#${String(day).padStart(6, "0")}`;

/** Every key starts with the tenant, so a query built from a credential can only reach that tenant. */
export const Keys = {
  /** An agent's profile: what the agent lists read, in the class and tenant indexes. */
  agent: (tenant: string, agentId: string) => ({ pk: `T#${tenant}#A#${agentId}`, sk: "AGENT" }),
  /**
   * The agent's last-seen time from its periodic checkpoints, beside its profile in the same partition
   * but in no index: it carries no index key, so a checkpoint writes one small item and nothing else.
   */
  agentSeen: (tenant: string, agentId: string) => ({ pk: `T#${tenant}#A#${agentId}`, sk: "SEEN" }),
  agentsOfClass: (tenant: string, agentClass: string) => `T#${tenant}#C#${agentClass}`,
  agentInClass: (agentId: string) => `A#${agentId}`,
  agentsOfTenant: (tenant: string) => `T#${tenant}#AGENTS`,
  agentClass: (tenant: string, agentClass: string) => ({ pk: `T#${tenant}#CLASSES`, sk: `C#${agentClass}` }),
  /** A saved query over the tenant's agents, the tenant's groups in one partition by name. */
  group: (tenant: string, name: string) => ({ pk: `T#${tenant}#GROUPS`, sk: `G#${name}` }),
  /** The tenant's counting pass of its groups, beside them, out of their `G#` listing. */
  groupCounting: (tenant: string) => ({ pk: `T#${tenant}#GROUPS`, sk: "COUNTING" }),
  /** What the tenant set for its whole fleet: one item. */
  tenantSettings: (tenant: string) => ({ pk: `T#${tenant}#SETTINGS`, sk: "SETTINGS" }),
  /** A binary's content, once per tenant and canonical identity (its agents keep their own hashes). */
  manifest: (tenant: string, manifestId: string) => ({ pk: `T#${tenant}#MANIFESTS`, sk: `M#${manifestId}` }),
  /** Written by the console when it revokes an agent certificate; attributes serial and revokedAt. */
  revokedSerial: (tenant: string, serial: string) => ({ pk: `T#${tenant}#REVOKED`, sk: `S#${serial}` }),
  manifestChunk: (tenant: string, manifestId: string, index: number) => ({
    pk: `T#${tenant}#M#${manifestId}`,
    sk: `CHUNK#${String(index).padStart(4, "0")}`,
  }),
  /** One agent's operations, by operation id (which sorts by creation time). */
  operation: (tenant: string, agentId: string, operationId: string) => ({
    pk: `T#${tenant}#A#${agentId}#OPS`,
    sk: `OP#${operationId}`,
  }),
  /** All of a tenant's operations in the tenant index, by operation id. */
  operationsOfTenant: (tenant: string) => `T#${tenant}#OPERATIONS`,
  operationInTenant: (operationId: string) => `OP#${operationId}`,
  /** The class index's partition of the class's queued operations held for maintenance windows, by agent and id. */
  heldOperationsOfClass: (tenant: string, agentClass: string) => `T#${tenant}#HELD#${agentClass}`,
  heldOperation: (agentId: string, operationId: string) => `${agentId}#${operationId}`,
  /**
   * The due index: not tenant-prefixed, as the sweeper works for all tenants. An agent's operations share
   * a shard; the sort key is the due time, zero-padded so that string order is time order.
   */
  dueShard: (shard: number) => `DUE#${String(shard).padStart(2, "0")}`,
  dueAt: (time: number) => String(Math.max(0, Math.floor(time))).padStart(15, "0"),
  /**
   * An event staged in the outbox with the operation change it records: in its agent's operations
   * partition (beside the operation, so the change and the event are one small transaction), and in the
   * due index's outbox shards, where the relay finds those left behind, by time.
   */
  stagedEvent: (tenant: string, agentId: string, eventId: string) => ({
    pk: `T#${tenant}#A#${agentId}#OPS`,
    sk: `OUTBOX#${eventId}`,
  }),
  outboxShard: (shard: number) => `OUTBOX#${String(shard).padStart(2, "0")}`,
  /**
   * An event kept in the outbox because the cache's buffer could not hold it: an item of its own, and in the
   * due index's kept-event shards (one agent's in one shard), where the held events' relay finds it, by time.
   */
  keptEvent: (tenant: string, eventId: string) => ({ pk: `T#${tenant}#KEPT-EVENT#${eventId}`, sk: "EVENT" }),
  keptEventShard: (shard: number) => `OUTBOX#KEPT#${String(shard).padStart(2, "0")}`,
  /**
   * The due index's partition of a class's agents announced offline, by their last heartbeat (dueAt): the
   * sweeper's clean-up reads the class's, never the whole registry. Their profiles carry it while silent.
   */
  silentAgentsOfClass: (tenant: string, agentClass: string) => `T#${tenant}#SILENT#C#${agentClass}`,
  /** The due index's partition of every tenant's active rollouts, by creation time (dueAt). */
  dueRollouts: () => "DUE#ROLLOUTS",
  /** A class's flow versions, by hash. */
  flowVersion: (tenant: string, className: string, hash: string) => ({
    pk: `T#${tenant}#FLOWS#C#${className}`,
    sk: `F#${hash}`,
  }),
  /**
   * The number a class's last flow version took, in the versions' partition but outside their `F#` listing:
   * each version's put and its number's update are one transaction.
   */
  flowVersionNumber: (tenant: string, className: string) => ({
    pk: `T#${tenant}#FLOWS#C#${className}`,
    sk: "NUMBERED",
  }),
  /** Flow documents, once per tenant and hash whichever classes publish them (agents download by hash). */
  flowContent: (tenant: string, hash: string) => ({ pk: `T#${tenant}#FLOWCONTENT`, sk: `F#${hash}` }),
  flowContentChunk: (tenant: string, hash: string, index: number) => ({
    pk: `T#${tenant}#F#${hash}`,
    sk: `CHUNK#${String(index).padStart(4, "0")}`,
  }),
  /** The parameter values set for one class, by name: the class's values are one query. */
  classParameter: (tenant: string, className: string, name: string) => ({
    pk: `T#${tenant}#PARAMS#C#${className}`,
    sk: `P#${name}`,
  }),
  /** A class's values as a rollout of its staged changes froze them, by name: what its members download. */
  rolloutParameter: (tenant: string, className: string, rolloutId: string, name: string) => ({
    pk: `T#${tenant}#PARAMS#R#${className}#${rolloutId}`,
    sk: `P#${name}`,
  }),
  /** The parameter values set for one group, for its members, by name: the group's values are one query. */
  groupParameter: (tenant: string, group: string, name: string) => ({
    pk: `T#${tenant}#PARAMS#G#${group}`,
    sk: `P#${name}`,
  }),
  /** The parameter values set for one agent, by name: the agent's values are one query. */
  agentParameter: (tenant: string, agentId: string, name: string) => ({
    pk: `T#${tenant}#PARAMS#A#${agentId}`,
    sk: `P#${name}`,
  }),
  /**
   * The tenant index's partition (gsi2) of the agents holding their own value of one parameter, by agent id
   * (agentInClass): what the class's values leave to them is found without a query per agent.
   */
  agentsHoldingParameter: (tenant: string, name: string) => `T#${tenant}#PARAMS#N#${name}`,
  /** A tenant's assets, by id (the SHA-256 of the bytes, which S3 holds). */
  asset: (tenant: string, assetId: string) => ({ pk: `T#${tenant}#ASSETS`, sk: `A#${assetId}` }),
  /** A tenant's debug bundles, by the id of the TRANSFER DEBUG operation each answers (which sorts by time). */
  debugBundle: (tenant: string, operationId: string) => ({
    pk: `T#${tenant}#BUNDLES`,
    sk: `B#${operationId}`,
  }),
  /** One agent's debug bundles, in the index by class (gsi1), by operation id. */
  debugBundlesOfAgent: (tenant: string, agentId: string) => `T#${tenant}#A#${agentId}#BUNDLES`,
  /** A class's adoptions of flows its agents ran, by id (the TRANSFER DEBUG operation's, which sorts by time). */
  adoption: (tenant: string, className: string, adoptionId: string) => ({
    pk: `T#${tenant}#ADOPTIONS#C#${className}`,
    sk: `AD#${adoptionId}`,
  }),
  /** The due index's partition of every tenant's adoptions still requested, by creation time (dueAt). */
  dueAdoptions: () => "DUE#ADOPTIONS",
  /** A tenant's selection jobs, by selection id (which sorts by creation time). */
  selectionJob: (tenant: string, selectionId: string) => ({
    pk: `T#${tenant}#SELECTIONS`,
    sk: `SEL#${selectionId}`,
  }),
  /** The due index's partition of every tenant's running selection jobs, by creation time (dueAt). */
  dueSelections: () => "DUE#SELECTIONS",
  /** A class's resource set: the assets its agents hold. */
  resourceSet: (tenant: string, className: string) => ({ pk: `T#${tenant}#RESOURCES`, sk: `C#${className}` }),
  /** A tenant's rollouts, by rollout id (which sorts by creation time). */
  rollout: (tenant: string, rolloutId: string) => ({ pk: `T#${tenant}#ROLLOUTS`, sk: `R#${rolloutId}` }),
  /** A rollout's members share a partition, by batch then agent id. */
  rolloutMember: (tenant: string, rolloutId: string, batch: number, agentId: string) => ({
    pk: `T#${tenant}#R#${rolloutId}`,
    sk: `${rolloutBatchPrefix(batch)}${agentId}`,
  }),
  rolloutBatch: rolloutBatchPrefix,
  /** Issued agent certificates, by canonical serial (upper-case hex, no separators or leading zeros). */
  certificate: (tenant: string, serial: string) => ({ pk: `T#${tenant}#CERTS`, sk: `S#${serial}` }),
  /** One agent's agent certificates in the class index (gsi1), by serial: for the agent's view. */
  certificatesOfAgent: (tenant: string, agentId: string) => `T#${tenant}#A#${agentId}#CERTS`,
  /** A tenant's certificates not revoked, in the tenant index (gsi2) by expiry key: the expiring list. */
  certificatesByExpiry: (tenant: string) => `T#${tenant}#CERTEXPIRY`,
  /** The due index's partition of every tenant's certificates whose expiry is yet to be announced, by notAfter. */
  dueCertificates: () => "DUE#CERTIFICATES",
  /** One event subscription's deliveries, by the event's time and id (deliveryLogKey): its delivery log. */
  delivery: (tenant: string, subscriptionId: string, logKey: string) => ({
    pk: `T#${tenant}#W#${subscriptionId}#DELIVERIES`,
    sk: `D#${logKey}`,
  }),
  /** The due index's partitions of every tenant's pending deliveries, by next attempt (dueAt). */
  dueDeliveries: (shard: number) => `DUE#WEBHOOKS#${String(shard).padStart(2, "0")}`,
  /** One minute of a class's history (or the whole fleet's, `*`), by minute: zero-padded, so that string order is time order. */
  historyBucket: (tenant: string, agentClass: string, minute: number) => ({
    pk: `T#${tenant}#HISTORY#C#${agentClass}`,
    sk: historyMinute(minute),
  }),
  historyMinute,
  /** One hour of a tenant's usage, by hour: zero-padded, so that string order is time order. */
  usageHour: (tenant: string, hour: number) => ({ pk: `T#${tenant}#USAGE`, sk: usageHour(hour) }),
  /** A tenant's daily snapshot of what it stores, beside its hours. */
  usageDay: (tenant: string, day: number) => ({ pk: `T#${tenant}#USAGE`, sk: usageDay(day) }),
  /**
   * A tenant the daily snapshots of what tenants store read beside those the cache indexes: not tenant-prefixed,
   * as the sweeper lists them all, one partition (a tenant's item written about once a day).
   */
  snapshotTenant: (tenant: string) => ({ pk: "USAGE#TENANTS", sk: `T#${tenant}` }),
  /** One agent's kept events, by time and event id (agent-log.ts). */
  agentEvent: (tenant: string, agentId: string, logKey: string) => ({
    pk: `T#${tenant}#A#${agentId}#EVENTS`,
    sk: `E#${logKey}`,
  }),
  /** A tenant's audit trail, by time and request id (auditKey). */
  auditRecord: (tenant: string, auditKey: string) => ({ pk: `T#${tenant}#AUDIT`, sk: `E#${auditKey}` }),
  /** A tenant's event subscriptions, by subscription id (which sorts by creation time); a few at most. */
  subscription: (tenant: string, subscriptionId: string) => ({
    pk: `T#${tenant}#WEBHOOKS`,
    sk: `W#${subscriptionId}`,
  }),
  /** The tenant's revocation list: one item per revoked serial, read whole by the agent API. */
  revokedCertificate: (tenant: string, serial: string) => ({ pk: `T#${tenant}#REVOKED`, sk: `S#${serial}` }),
} as const;

/** An item as its record: without the attributes that only key or index it. */
export function recordOf<T>(item: Record<string, unknown>, keyAttributes: readonly string[]): T {
  const record = { ...item };
  for (const name of keyAttributes) delete record[name];
  return record as unknown as T;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The table's time to live, in epoch seconds, of an item about `time` kept for `retentionDays`. */
export const expiresAtSeconds = (time: number, retention: { retentionDays: number }): number =>
  Math.floor((time + retention.retentionDays * DAY_MS) / 1000);

export const isConditionalCheckFailure = (error: unknown): boolean =>
  (error as { name?: string }).name === "ConditionalCheckFailedException";

/** Writes the item unless one with its key exists; false when it did (the item was left as it was). */
export async function putIfAbsent(
  client: DocumentClient,
  tableName: string,
  item: Record<string, unknown>,
): Promise<boolean> {
  try {
    await directCalls(client).put({
      TableName: tableName,
      Item: item,
      ConditionExpression: "attribute_not_exists(pk)",
    });
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}

/**
 * Which items' conditions failed when a transaction was cancelled, in the order of its items; undefined
 * for any other error. A cancellation for another reason (a conflicting transaction) lists none.
 */
export function failedTransactionConditions(error: unknown): boolean[] | undefined {
  const cancellation = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (cancellation.name !== "TransactionCanceledException") return undefined;
  return (cancellation.CancellationReasons ?? []).map((reason) => reason.Code === "ConditionalCheckFailed");
}

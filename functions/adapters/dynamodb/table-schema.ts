/**
 * The one Beacon table's key design, shared by the DynamoDB adapters, the local stack and the CDK app.
 * Every partition key starts with the tenant ("T#<tenant>#..."), so no query can cross tenants; the one
 * exception is the due index, which only the sweeper reads, for every tenant at once.
 */
export const TableSchema = {
  partitionKey: "pk",
  sortKey: "sk",
  timeToLiveAttribute: "expiresAt",
  /**
   * What every index holds of an item it indexes: all of it, as the agent lists filter a page by the agent
   * profile's manifest, flow and hostname and show them. Periodic checkpoints stay out of the indexes
   * by writing an item that carries no index key (Keys.agentSeen), not by projecting less.
   */
  indexProjection: "ALL",
  indexes: {
    /**
     * A tenant's agents of one class, by agent id; one agent's certificates, by serial; a class's queued
     * operations held for maintenance windows, by agent and id.
     */
    byClass: { indexName: "gsi1", partitionKey: "gsi1pk", sortKey: "gsi1sk" },
    /**
     * All of a tenant's agents, by agent id: tenant-wide lists without a scan; its operations, by id; its
     * certificates not revoked, by expiry; the agents holding their own value of a parameter, by agent id.
     */
    byTenant: { indexName: "gsi2", partitionKey: "gsi2pk", sortKey: "gsi2sk" },
    /**
     * Open operations by the time the sweeper should look at them, in a few shards across all tenants;
     * active rollouts; certificates whose expiry is yet to be announced, by notAfter; a tenant's agents
     * announced offline, by class and last heartbeat. Sparse: an operation leaves it when it closes, a
     * certificate once announced or revoked, an agent when it is back or decommissioned.
     */
    due: { indexName: "gsi3", partitionKey: "gsi3pk", sortKey: "gsi3sk" },
  },
} as const;

/**
 * The one Beacon table's key design, shared by the DynamoDB adapters, the local stack and the CDK app.
 * Every partition key starts with the tenant ("T#<tenant>#..."), so no query can cross tenants.
 */
export const TableSchema = {
  partitionKey: "pk",
  sortKey: "sk",
  timeToLiveAttribute: "expiresAt",
  indexes: {
    byClass: { indexName: "gsi1", partitionKey: "gsi1pk", sortKey: "gsi1sk" },
  },
} as const;

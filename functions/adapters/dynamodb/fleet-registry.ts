import { DeleteCommand, type DynamoDBDocumentClient, QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { AgentQuery, FleetRegistry } from "../../core/fleet/ports.js";
import { type AgentItem, DynamoAgentRegistry, toRecord } from "./agent-registry.js";
import { Keys } from "./keys.js";
import { queryAll } from "./paging.js";
import { TableSchema } from "./table-schema.js";

const { byClass, byTenant } = TableSchema.indexes;

/**
 * The console's view of the agent registry. Lists read an index partition of the caller's tenant,
 * by class or the whole fleet, in agent id order; filters narrow what a page returns, never what it reads.
 */
export class DynamoFleetRegistry implements FleetRegistry {
  private readonly registry: DynamoAgentRegistry;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.registry = new DynamoAgentRegistry(client, tableName);
  }

  get(tenant: string, agentId: string) {
    return this.registry.get(tenant, agentId);
  }

  async query(tenant: string, query: AgentQuery) {
    const index = this.indexFor(tenant, query.agentClass);
    const filters: string[] = [];
    const values: Record<string, unknown> = { ":partition": index.partition };
    const names: Record<string, string> = { "#partition": index.partitionKey };
    if (query.manifestHash !== undefined) {
      filters.push("manifestHash = :manifestHash");
      values[":manifestHash"] = query.manifestHash;
    }
    if (query.manifestId !== undefined) {
      // The agent's manifest counts only while it is the one of the hash the agent reports.
      filters.push("manifest.manifestId = :manifestId AND manifest.#hash = manifestHash");
      values[":manifestId"] = query.manifestId;
      names["#hash"] = "hash";
    }
    if (query.flowId !== undefined) {
      filters.push("flowId = :flowId");
      values[":flowId"] = query.flowId;
    }
    if (query.text !== undefined) {
      filters.push("(contains(agentId, :text) OR contains(device.hostname, :text))");
      values[":text"] = query.text;
    }
    const page = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: index.indexName,
        KeyConditionExpression: "#partition = :partition",
        FilterExpression: filters.length > 0 ? filters.join(" AND ") : undefined,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ExclusiveStartKey: query.after === undefined ? undefined : index.startAfter(query.after),
        ScanIndexForward: !query.descending,
        Limit: query.limit,
      }),
    );
    const last = page.LastEvaluatedKey?.[index.sortKey] as string | undefined;
    return {
      items: (page.Items ?? []).map((item) => toRecord(item as AgentItem)),
      last: last?.slice(Keys.agentInClass("").length),
    };
  }

  async remove(tenant: string, agentId: string) {
    const { Attributes } = await this.client.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: Keys.agent(tenant, agentId),
        ReturnValues: "ALL_OLD",
      }),
    );
    return Attributes !== undefined;
  }

  async count(tenant: string, agentClass: string, seenSince?: number) {
    const { count } = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: byClass.indexName,
      KeyConditionExpression: "#partition = :partition",
      FilterExpression: seenSince === undefined ? undefined : "lastSeen >= :since",
      ExpressionAttributeNames: { "#partition": byClass.partitionKey },
      ExpressionAttributeValues: {
        ":partition": Keys.agentsOfClass(tenant, agentClass),
        ...(seenSince === undefined ? {} : { ":since": seenSince }),
      },
      Select: "COUNT",
    });
    return count;
  }

  /** The index to read, its partition for this tenant, and the full key to continue after an agent. */
  private indexFor(tenant: string, agentClass: string | undefined) {
    const index = agentClass === undefined ? byTenant : byClass;
    const partition =
      agentClass === undefined ? Keys.agentsOfTenant(tenant) : Keys.agentsOfClass(tenant, agentClass);
    return {
      ...index,
      partition,
      startAfter: (agentId: string) => ({
        ...Keys.agent(tenant, agentId),
        [index.partitionKey]: partition,
        [index.sortKey]: Keys.agentInClass(agentId),
      }),
    };
  }
}

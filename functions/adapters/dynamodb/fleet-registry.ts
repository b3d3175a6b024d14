import type { Labels } from "../../core/agents/labels.js";
import type { AgentAssignment, AgentPin, AgentRecord, SilentAgent } from "../../core/agents/ports.js";
import type { AgentQuery, Decommissioning, FleetRegistry, RegistryFilters } from "../../core/fleet/ports.js";
import {
  type AgentItem,
  DynamoAgentRegistry,
  registeredAgents,
  toRecord,
  withLastSeen,
} from "./agent-registry.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { Keys } from "./keys.js";
import { queryAll } from "./paging.js";
import { TableSchema } from "./table-schema.js";

const { byClass, byTenant, due } = TableSchema.indexes;

/** The most values one `IN` comparison of a filter expression may list. */
const MAX_IN_OPERANDS = 100;

/**
 * The console's view of the agent registry. Lists read an index partition of the caller's tenant,
 * by class or the whole fleet, in agent id order; filters narrow what a page returns, never what it reads.
 * The indexes hold agents' profiles; their last-seen times from periodic checkpoints are read beside.
 */
export class DynamoFleetRegistry implements FleetRegistry {
  private readonly registry: DynamoAgentRegistry;

  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {
    this.registry = new DynamoAgentRegistry(client, tableName);
  }

  get(tenant: string, agentId: string) {
    return this.registry.get(tenant, agentId);
  }

  getMany(tenant: string, agentIds: string[]) {
    return registeredAgents(this.client, this.tableName, tenant, agentIds);
  }

  async query(tenant: string, query: AgentQuery) {
    const index = this.indexFor(tenant, query.agentClass);
    const page = await directCalls(this.client).query({
      ...this.filteredIndexQuery(index, query),
      ExclusiveStartKey: query.after === undefined ? undefined : index.startAfter(query.after),
      ScanIndexForward: !query.descending,
      Limit: query.limit,
    });
    const last = page.LastEvaluatedKey?.[index.sortKey] as string | undefined;
    const records = (page.Items ?? []).map((item) => toRecord(item as AgentItem));
    return {
      items: await withLastSeen(this.client, this.tableName, tenant, records),
      last: last?.slice(Keys.agentInClass("").length),
    };
  }

  /**
   * The same index query, counted page after page (Select=COUNT): it costs what reading the partition does,
   * half a read unit per 4 KB of the profiles read, eventually consistent, whatever the filters keep.
   */
  async countMatching(tenant: string, filters: RegistryFilters) {
    const index = this.indexFor(tenant, filters.agentClass);
    return (await queryAll(this.client, { ...this.filteredIndexQuery(index, filters), Select: "COUNT" }))
      .count;
  }

  /** The index query of the partition with the filters as its filter expression. */
  private filteredIndexQuery(index: ReturnType<DynamoFleetRegistry["indexFor"]>, query: RegistryFilters) {
    const filters: string[] = [];
    const values: Record<string, unknown> = { ":partition": index.partition };
    const names: Record<string, string> = { "#partition": index.partitionKey };
    /** `attribute IN (…)` over the values, each bound under its own name, 100 a list as DynamoDB allows. */
    const oneOf = (attribute: string, name: string, list: readonly string[]) => {
      const placeholders = list.map((value, position) => {
        values[`:${name}${position}`] = value;
        return `:${name}${position}`;
      });
      const lists = [];
      for (let start = 0; start < placeholders.length; start += MAX_IN_OPERANDS)
        lists.push(`${attribute} IN (${placeholders.slice(start, start + MAX_IN_OPERANDS).join(", ")})`);
      return `(${lists.join(" OR ")})`;
    };
    if (query.agentClasses !== undefined) filters.push(oneOf("agentClass", "class", query.agentClasses));
    if (query.manifestHash !== undefined) {
      filters.push("manifestHash = :manifestHash");
      values[":manifestHash"] = query.manifestHash;
    }
    const binaries = [
      ...(query.manifestId === undefined ? [] : [[query.manifestId]]),
      ...(query.manifestIds === undefined ? [] : [query.manifestIds]),
    ];
    for (const [position, manifestIds] of binaries.entries()) {
      // The agent's manifest counts only while it is the one of the hash the agent reports.
      filters.push(
        `${oneOf("manifest.manifestId", `manifest${position}_`, manifestIds)} AND manifest.#hash = manifestHash`,
      );
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
    if (query.operatingSystem !== undefined) {
      filters.push("device.operatingSystem = :operatingSystem");
      values[":operatingSystem"] = query.operatingSystem;
    }
    if (query.machineArch !== undefined) {
      filters.push("device.machineArch = :machineArch");
      values[":machineArch"] = query.machineArch;
    }
    // The effective labels (effectiveLabels): an operator's label, else the one read from the agent's reports.
    for (const [position, { key, value }] of (query.labels ?? []).entries()) {
      const set = `labels.#label${position}`;
      const reported = `reportedLabels.#label${position}`;
      names[`#label${position}`] = key;
      if (value === undefined) filters.push(`(attribute_exists(${set}) OR attribute_exists(${reported}))`);
      else {
        filters.push(
          `(${set} = :label${position} OR (attribute_not_exists(${set}) AND ${reported} = :label${position}))`,
        );
        values[`:label${position}`] = value;
      }
    }
    return {
      TableName: this.tableName,
      IndexName: index.indexName,
      KeyConditionExpression: "#partition = :partition",
      FilterExpression: filters.length > 0 ? filters.join(" AND ") : undefined,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    };
  }

  decommission(tenant: string, agentId: string, decommissioning: Decommissioning) {
    return this.registry.decommission(tenant, agentId, decommissioning);
  }

  markSilent(tenant: string, agent: SilentAgent) {
    return this.registry.markSilent(tenant, agent);
  }

  clearSilent(tenant: string, agentId: string, lastSeen: number) {
    return this.registry.clearSilent(tenant, agentId, lastSeen);
  }

  /** One query of the class's partition of the due index, up to the time. */
  async silentBefore(tenant: string, agentClass: string, before: number, limit: number) {
    const { Items = [] } = await directCalls(this.client).query({
      TableName: this.tableName,
      IndexName: due.indexName,
      KeyConditionExpression: "#partition = :partition AND #sort < :before",
      ExpressionAttributeNames: { "#partition": due.partitionKey, "#sort": due.sortKey },
      ExpressionAttributeValues: {
        ":partition": Keys.silentAgentsOfClass(tenant, agentClass),
        ":before": Keys.dueAt(before),
      },
      Limit: limit,
    });
    return (Items as AgentItem[]).map((item) => ({
      agentId: item.agentId,
      agentClass: item.agentClass,
      lastSeen: item.silentSince as number,
    }));
  }

  putLabels(tenant: string, agentId: string, labels: Labels) {
    return this.registry.putLabels(tenant, agentId, labels);
  }

  putPin(tenant: string, agentId: string, pin: AgentPin | undefined) {
    return this.registry.putPin(tenant, agentId, pin);
  }

  putAssignment(tenant: string, agentId: string, assignment: AgentAssignment | undefined) {
    return this.registry.putAssignment(tenant, agentId, assignment);
  }

  /**
   * The whole class index partition, projected to agent id and flow id: a Query reads up to 1 MB a page and
   * costs by the size of the items it reads (half a read unit per 4 KB, eventually consistent), projection
   * or not.
   */
  async reportedFlows(tenant: string, agentClass: string) {
    const { items } = await queryAll(this.client, {
      TableName: this.tableName,
      IndexName: byClass.indexName,
      KeyConditionExpression: "#partition = :partition",
      ExpressionAttributeNames: { "#partition": byClass.partitionKey },
      ExpressionAttributeValues: { ":partition": Keys.agentsOfClass(tenant, agentClass) },
      ProjectionExpression: "agentId, flowId",
    });
    return items as { agentId: string; flowId?: string }[];
  }

  /**
   * Counted from the class index. Online agents (`seenSince`) are those whose profile was written since;
   * the others' last-seen items are read for the rest: the cache-down path's price for cheap checkpoints.
   */
  async count(tenant: string, agentClass: string, seenSince?: number) {
    const partition = {
      TableName: this.tableName,
      IndexName: byClass.indexName,
      KeyConditionExpression: "#partition = :partition",
      ExpressionAttributeNames: { "#partition": byClass.partitionKey },
      ExpressionAttributeValues: { ":partition": Keys.agentsOfClass(tenant, agentClass) },
    };
    if (seenSince === undefined)
      return (await queryAll(this.client, { ...partition, Select: "COUNT" })).count;
    const { items } = await queryAll(this.client, {
      ...partition,
      ProjectionExpression: "agentId, lastSeen",
    });
    const profiles = items as Pick<AgentRecord, "agentId" | "lastSeen">[];
    const since = (record: { lastSeen: number }) => record.lastSeen >= seenSince;
    const stale = profiles.filter((record) => !since(record));
    const seen = await withLastSeen(this.client, this.tableName, tenant, stale);
    return profiles.length - stale.length + seen.filter(since).length;
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

import type { UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import type { Labels } from "../../core/agents/labels.js";
import type {
  AgentAssignment,
  AgentCheckpoint,
  AgentClassRegistry,
  AgentPin,
  AgentRecord,
  AgentRegistry,
  SilentAgent,
} from "../../core/agents/ports.js";
import type { Decommissioning } from "../../core/fleet/ports.js";
import { dropUndefined } from "../../core/json.js";
import type { AgentManifest } from "../../core/manifests/agent-manifest.js";
import { batchGetAll } from "./batch-get.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { stagedEventItem } from "./event-outbox.js";
import { failedTransactionConditions, isConditionalCheckFailure, Keys } from "./keys.js";

/** The agent's manifest in its item: `supportedOperations` as JSON text, kept exactly as the agent sent it. */
interface AgentManifestItem {
  hash: string;
  manifestId: string;
  supportedOperations: string;
}

export interface AgentItem {
  tenant: string;
  agentId: string;
  agentClass: string;
  manifestHash?: string;
  manifest?: AgentManifestItem;
  flowId?: string;
  device?: AgentRecord["device"];
  firstSeen: number;
  lastSeen: number;
  describeOperationId?: string;
  describeExpiresAt?: number;
  labels?: Labels;
  reportedLabels?: Labels;
  pin?: AgentPin;
  assignment?: AgentAssignment;
  /** Set while the agent is announced offline: its last heartbeat, its place in the silent index. */
  silentSince?: number;
  /** Set once decommissioned (FleetRegistry.decommission): the entry is kept, out of every index. */
  decommissionedAt?: number;
  decommissionReason?: string;
}

export class DynamoAgentRegistry implements AgentRegistry {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  /** The profile and the last-seen item share a partition: one query reads both, for one read unit. */
  async get(tenant: string, agentId: string): Promise<AgentRecord | undefined> {
    const profileKey = Keys.agent(tenant, agentId);
    const { Items = [] } = await directCalls(this.client).query({
      TableName: this.tableName,
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": profileKey.pk },
      ConsistentRead: true,
    });
    const profile = Items.find((item) => item.sk === profileKey.sk);
    if (!profile || profile.decommissionedAt !== undefined) return undefined;
    const seen = Items.find((item) => item.sk === Keys.agentSeen(tenant, agentId).sk);
    return seenAt(toRecord(profile as AgentItem), seen?.lastSeen as number | undefined);
  }

  async register(record: AgentRecord): Promise<"created" | "returned" | "exists"> {
    try {
      // The entry replaced, if any: a decommissioned agent's, returned only when there was one.
      // Sent directly: a herd's registrations are where the SDK's per-call work costs the most.
      const { Attributes } = await directCalls(this.client).put({
        TableName: this.tableName,
        Item: agentProfileItem(record),
        ConditionExpression: "attribute_not_exists(pk) OR attribute_exists(decommissionedAt)",
        ReturnValues: "ALL_OLD",
      });
      return Attributes ? "returned" : "created";
    } catch (error) {
      if (isConditionalCheckFailure(error)) return "exists";
      throw error;
    }
  }

  /**
   * An upsert rather than a conditional update: should the item have gone (a restore, a manual
   * delete) while the cache still knew the agent, the checkpoint writes it back whole.
   */
  async checkpoint(tenant: string, agentId: string, checkpoint: AgentCheckpoint): Promise<void> {
    const values: Record<string, unknown> = {
      tenant,
      agentId,
      lastSeen: checkpoint.lastSeen,
      agentClass: checkpoint.agentClass,
      manifestHash: checkpoint.manifestHash,
      manifest: checkpoint.manifest && manifestItemOf(checkpoint.manifest),
      flowId: checkpoint.flowId,
      device: checkpoint.device,
      reportedLabels: checkpoint.reportedLabels,
      ...(checkpoint.agentClass ? classIndexOf(tenant, agentId, checkpoint.agentClass) : {}),
      ...tenantIndexOf(tenant, agentId),
    };
    const present = Object.entries(values).filter(([, value]) => value !== undefined);
    const assignments = present.map(([name]) => `#${name} = :${name}`);
    assignments.push("#firstSeen = if_not_exists(#firstSeen, :lastSeen)");
    // Sent directly, as recordSeen's put: a steady fleet's checkpoints are the agent API's DynamoDB requests.
    await directCalls(this.client).update({
      TableName: this.tableName,
      Key: Keys.agent(tenant, agentId),
      UpdateExpression: `SET ${assignments.join(", ")}`,
      ExpressionAttributeNames: Object.fromEntries(
        [...present.map(([name]) => name), "firstSeen"].map((name) => [`#${name}`, name]),
      ),
      ExpressionAttributeValues: Object.fromEntries(present.map(([name, value]) => [`:${name}`, value])),
    });
  }

  /** Unconditional: one write unit for the small item, whether or not the agent's profile is still there. */
  async recordSeen(tenant: string, agentId: string, lastSeen: number): Promise<void> {
    await directCalls(this.client).put({
      TableName: this.tableName,
      Item: agentSeenItem(tenant, agentId, lastSeen),
    });
  }

  async beginDescribe(tenant: string, agentId: string, operationId: string, now: number, expiresAt: number) {
    return this.conditionalUpdate({
      Key: Keys.agent(tenant, agentId),
      UpdateExpression: "SET describeOperationId = :operationId, describeExpiresAt = :expiresAt",
      ConditionExpression:
        "attribute_exists(pk) AND (attribute_not_exists(describeExpiresAt) OR describeExpiresAt <= :now)",
      ExpressionAttributeValues: { ":operationId": operationId, ":expiresAt": expiresAt, ":now": now },
    });
  }

  async completeDescribe(
    tenant: string,
    agentId: string,
    operationId: string,
    manifest: AgentManifest | undefined,
    reportedLabels?: Labels,
  ) {
    const kept = manifestAssignments(manifest, reportedLabels);
    return this.conditionalUpdate({
      Key: Keys.agent(tenant, agentId),
      UpdateExpression: `REMOVE describeOperationId, describeExpiresAt${kept.set}`,
      ConditionExpression: "describeOperationId = :operationId",
      ExpressionAttributeValues: { ":operationId": operationId, ...kept.values },
    });
  }

  async recordManifest(tenant: string, agentId: string, manifest: AgentManifest, reportedLabels?: Labels) {
    const kept = manifestAssignments(manifest, reportedLabels);
    return this.conditionalUpdate({
      Key: Keys.agent(tenant, agentId),
      UpdateExpression: kept.set.trim(),
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: kept.values,
    });
  }

  /** The whole map in one write, on a registered agent only: an agent without labels keeps no empty map. */
  putLabels(tenant: string, agentId: string, labels: Labels): Promise<boolean> {
    const empty = Object.keys(labels).length === 0;
    return this.conditionalUpdate({
      Key: Keys.agent(tenant, agentId),
      UpdateExpression: empty ? "REMOVE labels" : "SET labels = :labels",
      ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(decommissionedAt)",
      ExpressionAttributeValues: empty ? undefined : { ":labels": labels },
    });
  }

  putPin(tenant: string, agentId: string, pin: AgentPin | undefined): Promise<boolean> {
    return this.putHold(tenant, agentId, "pin", pin);
  }

  putAssignment(tenant: string, agentId: string, assignment: AgentAssignment | undefined): Promise<boolean> {
    return this.putHold(tenant, agentId, "assignment", assignment);
  }

  /** On a registered agent only; without one, the agent keeps no such attribute. */
  private putHold(
    tenant: string,
    agentId: string,
    field: "pin" | "assignment",
    hold: AgentPin | AgentAssignment | undefined,
  ): Promise<boolean> {
    return this.conditionalUpdate({
      Key: Keys.agent(tenant, agentId),
      UpdateExpression: hold === undefined ? `REMOVE ${field}` : `SET ${field} = :hold`,
      ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(decommissionedAt)",
      ExpressionAttributeValues: hold === undefined ? undefined : { ":hold": hold },
    });
  }

  /** Only a registered agent's profile: an agent decommissioned meanwhile is not filed again. */
  async markSilent(tenant: string, agent: SilentAgent): Promise<void> {
    await this.conditionalUpdate({
      Key: Keys.agent(tenant, agent.agentId),
      UpdateExpression: "SET gsi3pk = :partition, gsi3sk = :since, silentSince = :lastSeen",
      ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(decommissionedAt)",
      ExpressionAttributeValues: {
        ":partition": Keys.silentAgentsOfClass(tenant, agent.agentClass),
        ":since": Keys.dueAt(agent.lastSeen),
        ":lastSeen": agent.lastSeen,
      },
    });
  }

  async clearSilent(tenant: string, agentId: string, lastSeen: number): Promise<void> {
    await this.conditionalUpdate({
      Key: Keys.agent(tenant, agentId),
      UpdateExpression: "REMOVE gsi3pk, gsi3sk, silentSince",
      ConditionExpression: "silentSince = :lastSeen",
      ExpressionAttributeValues: { ":lastSeen": lastSeen },
    });
  }

  /**
   * One conditional update of the profile, which leaves every index (so lists, counts and rollouts no
   * longer see it) and keeps the rest; the periodic last-seen item goes, its time kept in the profile.
   */
  async decommission(tenant: string, agentId: string, decommissioning: Decommissioning): Promise<boolean> {
    const still = decommissioning.reason === "silent" ? " AND silentSince = :lastSeen" : "";
    const mark = {
      TableName: this.tableName,
      Key: Keys.agent(tenant, agentId),
      UpdateExpression:
        "SET decommissionedAt = :at, decommissionReason = :reason, lastSeen = :lastSeen " +
        "REMOVE gsi1pk, gsi1sk, gsi2pk, gsi2sk, gsi3pk, gsi3sk, silentSince, describeOperationId, describeExpiresAt",
      ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(decommissionedAt)${still}`,
      ExpressionAttributeValues: {
        ":at": decommissioning.at,
        ":reason": decommissioning.reason,
        ":lastSeen": decommissioning.lastSeen,
      },
    };
    const decommissioned = await this.conditionally(() =>
      decommissioning.reason === "silent"
        ? directCalls(this.client).transactWrite({
            TransactItems: [
              { Update: mark },
              { Put: { TableName: this.tableName, Item: stagedEventItem(decommissioning.event) } },
            ],
          })
        : directCalls(this.client).update(mark),
    );
    if (decommissioned)
      await directCalls(this.client).delete({
        TableName: this.tableName,
        Key: Keys.agentSeen(tenant, agentId),
      });
    return decommissioned;
  }

  private conditionalUpdate(update: Omit<UpdateCommandInput, "TableName">) {
    return this.conditionally(() =>
      directCalls(this.client).update({ TableName: this.tableName, ...update }),
    );
  }

  /** Whether the write's conditions held: false when one did not, alone or in a transaction. */
  private async conditionally(write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error) || failedTransactionConditions(error)?.some(Boolean)) return false;
      throw error;
    }
  }
}

export class DynamoAgentClassRegistry implements AgentClassRegistry {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async ensure(tenant: string, agentClass: string, now: number): Promise<void> {
    try {
      await directCalls(this.client).put({
        TableName: this.tableName,
        Item: {
          ...Keys.agentClass(tenant, agentClass),
          tenant,
          name: agentClass,
          createdAt: now,
          autoCreated: true,
        },
        ConditionExpression: "attribute_not_exists(pk)",
      });
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
  }
}

/** The SET clause (with its leading space) keeping a manifest learned and the labels read from it. */
function manifestAssignments(manifest: AgentManifest | undefined, reportedLabels: Labels | undefined) {
  const values = dropUndefined({
    ":manifest": manifest && manifestItemOf(manifest),
    ":reportedLabels": reportedLabels,
  });
  const names = Object.keys(values).map((value) => `${value.slice(1)} = ${value}`);
  return { set: names.length === 0 ? "" : ` SET ${names.join(", ")}`, values };
}

/** The agent's profile as registration writes it: the item the console's agent lists read, in both indexes. */
export const agentProfileItem = (record: AgentRecord) => ({
  ...Keys.agent(record.tenant, record.agentId),
  ...classIndexOf(record.tenant, record.agentId, record.agentClass),
  ...tenantIndexOf(record.tenant, record.agentId),
  ...dropUndefined({
    tenant: record.tenant,
    agentId: record.agentId,
    agentClass: record.agentClass,
    manifestHash: record.manifestHash,
    manifest: record.manifest && manifestItemOf(record.manifest),
    flowId: record.flowId,
    device: record.device,
    firstSeen: record.firstSeen,
    lastSeen: record.lastSeen,
    reportedLabels: record.reportedLabels,
  }),
});

/** A periodic checkpoint's last-seen time, apart from the profile and outside every index. */
export const agentSeenItem = (tenant: string, agentId: string, lastSeen: number) => ({
  ...Keys.agentSeen(tenant, agentId),
  lastSeen,
});

const manifestItemOf = (manifest: AgentManifest): AgentManifestItem => ({
  hash: manifest.hash,
  manifestId: manifest.manifestId,
  supportedOperations: JSON.stringify(manifest.supportedOperations),
});

const classIndexOf = (tenant: string, agentId: string, agentClass: string) => ({
  gsi1pk: Keys.agentsOfClass(tenant, agentClass),
  gsi1sk: Keys.agentInClass(agentId),
});

const tenantIndexOf = (tenant: string, agentId: string) => ({
  gsi2pk: Keys.agentsOfTenant(tenant),
  gsi2sk: Keys.agentInClass(agentId),
});

type LastSeen = Pick<AgentRecord, "agentId" | "lastSeen">;

/** The record with the later of its profile's last-seen time and the periodic checkpoints' one. */
const seenAt = <Seen extends LastSeen>(record: Seen, lastSeen: number | undefined): Seen =>
  lastSeen !== undefined && lastSeen > record.lastSeen ? { ...record, lastSeen } : record;

/**
 * The records with the last-seen times of their agents' periodic checkpoints: the console's index pages
 * hold profiles only, which a steady agent's checkpoints leave alone. One BatchGetItem per 100 agents.
 */
export async function withLastSeen<Seen extends LastSeen>(
  client: DocumentClient,
  tableName: string,
  tenant: string,
  records: Seen[],
): Promise<Seen[]> {
  const agentPrefix = Keys.agent(tenant, "").pk;
  const items = await batchGetAll(
    client,
    tableName,
    records.map((record) => Keys.agentSeen(tenant, record.agentId)),
    { ProjectionExpression: "pk, lastSeen" },
  );
  const seen = new Map(
    items.map((item) => [(item.pk as string).slice(agentPrefix.length), item.lastSeen as number]),
  );
  return records.map((record) => seenAt(record, seen.get(record.agentId)));
}

/**
 * The agents still registered among these, each as `get` reads it, consistently: their profiles and
 * periodic last-seen items, 50 agents (100 keys) to a BatchGetItem.
 */
export async function registeredAgents(
  client: DocumentClient,
  tableName: string,
  tenant: string,
  agentIds: string[],
): Promise<AgentRecord[]> {
  const items = await batchGetAll(
    client,
    tableName,
    agentIds.flatMap((agentId) => [Keys.agent(tenant, agentId), Keys.agentSeen(tenant, agentId)]),
    { ConsistentRead: true },
  );
  const byKey = new Map(items.map((item) => [`${item.pk}/${item.sk}`, item]));
  const itemOf = (key: { pk: string; sk: string }) => byKey.get(`${key.pk}/${key.sk}`);
  return agentIds.flatMap((agentId) => {
    const profile = itemOf(Keys.agent(tenant, agentId));
    if (!profile || profile.decommissionedAt !== undefined) return [];
    const seen = itemOf(Keys.agentSeen(tenant, agentId));
    return [seenAt(toRecord(profile as unknown as AgentItem), seen?.lastSeen as number | undefined)];
  });
}

export function toRecord(item: AgentItem): AgentRecord {
  return dropUndefined({
    tenant: item.tenant,
    agentId: item.agentId,
    agentClass: item.agentClass,
    manifestHash: item.manifestHash,
    manifest: item.manifest && {
      hash: item.manifest.hash,
      manifestId: item.manifest.manifestId,
      supportedOperations: JSON.parse(item.manifest.supportedOperations) as unknown[],
    },
    flowId: item.flowId,
    device: item.device,
    firstSeen: item.firstSeen,
    lastSeen: item.lastSeen,
    pendingDescribe:
      item.describeOperationId && item.describeExpiresAt !== undefined
        ? { operationId: item.describeOperationId, expiresAt: item.describeExpiresAt }
        : undefined,
    labels: item.labels,
    reportedLabels: item.reportedLabels,
    pin: item.pin,
    assignment: item.assignment,
  });
}

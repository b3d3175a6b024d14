import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type {
  AgentCheckpoint,
  AgentClassRegistry,
  AgentRecord,
  AgentRegistry,
} from "../../core/agents/ports.js";
import { dropUndefined } from "../../core/c2/json.js";
import type { AgentManifest } from "../../core/manifests/agent-manifest.js";
import { isConditionalCheckFailure, Keys } from "./keys.js";

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
}

export class DynamoAgentRegistry implements AgentRegistry {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(tenant: string, agentId: string): Promise<AgentRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: Keys.agent(tenant, agentId), ConsistentRead: true }),
    );
    return Item ? toRecord(Item as AgentItem) : undefined;
  }

  async register(record: AgentRecord): Promise<"created" | "exists"> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
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
            }),
          },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
      return "created";
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
      ...(checkpoint.agentClass ? classIndexOf(tenant, agentId, checkpoint.agentClass) : {}),
      ...tenantIndexOf(tenant, agentId),
    };
    const present = Object.entries(values).filter(([, value]) => value !== undefined);
    const assignments = present.map(([name]) => `#${name} = :${name}`);
    assignments.push("#firstSeen = if_not_exists(#firstSeen, :lastSeen)");
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: Keys.agent(tenant, agentId),
        UpdateExpression: `SET ${assignments.join(", ")}`,
        ExpressionAttributeNames: Object.fromEntries(
          [...present.map(([name]) => name), "firstSeen"].map((name) => [`#${name}`, name]),
        ),
        ExpressionAttributeValues: Object.fromEntries(present.map(([name, value]) => [`:${name}`, value])),
      }),
    );
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
  ) {
    return this.conditionalUpdate({
      Key: Keys.agent(tenant, agentId),
      UpdateExpression: manifest
        ? "REMOVE describeOperationId, describeExpiresAt SET manifest = :manifest"
        : "REMOVE describeOperationId, describeExpiresAt",
      ConditionExpression: "describeOperationId = :operationId",
      ExpressionAttributeValues: dropUndefined({
        ":operationId": operationId,
        ":manifest": manifest && manifestItemOf(manifest),
      }),
    });
  }

  async recordManifest(tenant: string, agentId: string, manifest: AgentManifest) {
    return this.conditionalUpdate({
      Key: Keys.agent(tenant, agentId),
      UpdateExpression: "SET manifest = :manifest",
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":manifest": manifestItemOf(manifest) },
    });
  }

  private async conditionalUpdate(update: Omit<ConstructorParameters<typeof UpdateCommand>[0], "TableName">) {
    try {
      await this.client.send(new UpdateCommand({ TableName: this.tableName, ...update }));
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }
}

export class DynamoAgentClassRegistry implements AgentClassRegistry {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async ensure(tenant: string, agentClass: string, now: number): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...Keys.agentClass(tenant, agentClass),
            tenant,
            name: agentClass,
            createdAt: now,
            autoCreated: true,
          },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
  }
}

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
  });
}

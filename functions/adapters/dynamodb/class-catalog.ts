import type { LabelSource } from "../../core/agents/label-sources.js";
import type {
  AgentClassChange,
  AgentClassRecord,
  ClassCatalog,
  ValueChanges,
} from "../../core/agents/ports.js";
import type { ClassFlowPolicy } from "../../core/flows/policy.js";
import { dropUndefined } from "../../core/json.js";
import type { PageRequest } from "../../core/paging.js";
import type { MaintenanceWindow } from "../../core/schedules/windows.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { Keys } from "./keys.js";
import { queryPartition } from "./paging.js";

const CLASS_PREFIX = "C#";

/** Agent classes, one item each beside the tenant's other classes; the agent API creates them on first sight. */
export class DynamoClassCatalog implements ClassCatalog {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async list(tenant: string, request: PageRequest) {
    const page = await queryPartition(
      this.client,
      this.tableName,
      { pk: Keys.agentClass(tenant, "").pk, prefix: CLASS_PREFIX },
      request,
    );
    return { items: page.items.map(toClass), last: page.last };
  }

  async get(tenant: string, name: string) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.agentClass(tenant, name),
    });
    return Item ? toClass(Item) : undefined;
  }

  /** One update: creation fields only where absent, so creating and updating race harmlessly. */
  async put(tenant: string, name: string, change: AgentClassChange, now: number) {
    const creation = classCreation(tenant, name, now);
    const assignments = [
      ...creation.assignments,
      "updatedAt = :now",
      ...(change.description === undefined ? [] : ["description = :description"]),
      ...(change.heartbeatIntervalSeconds === undefined ? [] : ["heartbeatIntervalSeconds = :interval"]),
      ...(change.ackTimeoutSeconds === undefined ? [] : ["ackTimeoutSeconds = :ackTimeout"]),
      ...(typeof change.cleanUpAfterDays === "number" ? ["cleanUpAfterDays = :cleanUpAfterDays"] : []),
      ...(change.valueChanges === undefined ? [] : ["valueChanges = :valueChanges"]),
      ...(change.labelSources === undefined ? [] : ["labelSources = :labelSources"]),
      ...(change.requireApproval === undefined ? [] : ["requireApproval = :requireApproval"]),
      ...(change.maintenanceWindows?.length ? ["maintenanceWindows = :windows"] : []),
    ];
    const removed = [
      ...(change.cleanUpAfterDays === null ? ["cleanUpAfterDays"] : []),
      ...(change.maintenanceWindows?.length === 0 ? ["maintenanceWindows"] : []),
    ];
    const remove = removed.length > 0 ? ` REMOVE ${removed.join(", ")}` : "";
    const { Attributes: before } = await directCalls(this.client).update({
      TableName: this.tableName,
      Key: Keys.agentClass(tenant, name),
      UpdateExpression: `SET ${assignments.join(", ")}${remove}`,
      ExpressionAttributeNames: creation.names,
      ExpressionAttributeValues: dropUndefined({
        ...creation.values,
        ":description": change.description,
        ":interval": change.heartbeatIntervalSeconds,
        ":ackTimeout": change.ackTimeoutSeconds,
        ":cleanUpAfterDays": change.cleanUpAfterDays ?? undefined,
        ":valueChanges": change.valueChanges,
        ":labelSources": change.labelSources,
        ":requireApproval": change.requireApproval,
        ":windows": change.maintenanceWindows?.length ? change.maintenanceWindows : undefined,
      }),
      // The item as it was tells a creation from an update; the new one follows from it and the change.
      ReturnValues: "ALL_OLD",
    });
    const record = toClass({
      tenant,
      name,
      createdAt: now,
      autoCreated: false,
      ...before,
      ...dropUndefined(change),
      updatedAt: now,
    });
    return { record, created: before === undefined };
  }
}

/**
 * The update clauses that give a class item its creation fields where it has none yet; every write that
 * may be a class's first (the console's put, a rollout's start) carries them, so whichever comes first creates it.
 */
export function classCreation(tenant: string, name: string, now: number) {
  return {
    assignments: [
      "tenant = :tenant",
      "#name = :name",
      "createdAt = if_not_exists(createdAt, :now)",
      "autoCreated = if_not_exists(autoCreated, :manual)",
    ],
    names: { "#name": "name" },
    values: { ":tenant": tenant, ":name": name, ":now": now, ":manual": false },
  };
}

function toClass(item: Record<string, unknown>): AgentClassRecord {
  return dropUndefined({
    tenant: item.tenant as string,
    name: item.name as string,
    description: item.description as string | undefined,
    heartbeatIntervalSeconds: item.heartbeatIntervalSeconds as number | undefined,
    ackTimeoutSeconds: item.ackTimeoutSeconds as number | undefined,
    // A change's null unsets it.
    cleanUpAfterDays: (item.cleanUpAfterDays ?? undefined) as number | undefined,
    labelSources: item.labelSources as LabelSource[] | undefined,
    // A change's empty list removes them.
    maintenanceWindows: (item.maintenanceWindows as MaintenanceWindow[] | undefined)?.length
      ? (item.maintenanceWindows as MaintenanceWindow[])
      : undefined,
    flowPolicy: item.flowPolicy as ClassFlowPolicy | undefined,
    valueChanges: item.valueChanges as ValueChanges | undefined,
    requireApproval: item.requireApproval as boolean | undefined,
    activeRolloutId: item.activeRolloutId as string | undefined,
    createdAt: item.createdAt as number,
    updatedAt: item.updatedAt as number | undefined,
    autoCreated: item.autoCreated === true,
  });
}

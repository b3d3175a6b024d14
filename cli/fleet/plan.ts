/**
 * The plan: what a fleet folder asks for beside what the tenant has, object by object — create, update (the
 * fields that differ), unchanged, and for what the folder does not declare, delete (with `--prune`) or
 * "not managed here" (left alone). Pure: the current state is read before, the changes made after.
 */
import type { Schemas } from "../../web/src/api/client.js";
import {
  type FleetObject,
  KINDS,
  type Kind,
  objectName,
  type ParameterKind,
  webhookName,
} from "./objects.js";

/** The tenant's state, as far as a folder's objects concern it. */
export interface CurrentState {
  settings: Schemas["TenantSettings"];
  /** Every class of the tenant. */
  classes: Map<string, Schemas["AgentClass"]>;
  /** Every group of the tenant. */
  groups: Map<string, Schemas["Group"]>;
  /** The parameters of the classes the folder names, by class (absent: the class does not exist). */
  classParameters: Map<string, Schemas["ParameterEntryList"]>;
  /** The parameters of the groups the folder names, by group. */
  groupParameters: Map<string, Schemas["ParameterEntryList"]>;
  /** The values set for each agent the folder gives one, by agent: the agent's own, not those it inherits. */
  agentParameters: Map<string, Schemas["ParameterEntryList"]>;
  /** The flow versions of the classes the folder publishes to, by class. */
  flows: Map<string, Schemas["FlowVersion"][]>;
  /** Which of the assets the folder's files are the tenant has (by id, their SHA-256). */
  assets: Set<string>;
  /** The resource sets of the classes the folder gives one, by class (absent: none set yet). */
  resourceSets: Map<string, Schemas["ResourceSet"]>;
  webhooks: Schemas["Subscription"][];
}

export type Action = "create" | "update" | "unchanged" | "delete" | "unmanaged";

export type Change =
  | { action: "create" | "unchanged"; kind: Kind; name: string; object: FleetObject }
  | {
      action: "update";
      kind: Kind;
      name: string;
      object: FleetObject;
      differences: string[];
      /** A webhook's update: the disabled subscription it enables (the API changes one no other way). */
      subscriptionId?: string;
    }
  | { action: "delete" | "unmanaged"; kind: Kind; name: string; target: Target; note?: string };

/** What a delete removes: a group, a subscription by id, or a class's, group's or agent's parameter. */
export type Target =
  | { kind: "Class" | "Group"; name: string }
  | { kind: ParameterKind; owner: string; name: string }
  | { kind: "Webhook"; subscriptionId: string };

export interface PlanOptions {
  prune: boolean;
}

export function plan(objects: FleetObject[], current: CurrentState, { prune }: PlanOptions): Change[] {
  const changes = objects.map((object) => changeFor(object, current));
  const declared = new Set(objects.map((object) => `${object.kind} ${objectName(object)}`));
  const absent = (kind: Kind, name: string) => !declared.has(`${kind} ${name}`);
  const left: Change[] = [];
  const leave = (kind: Kind, name: string, target: Target, note?: string) =>
    left.push({ action: prune && note === undefined ? "delete" : "unmanaged", kind, name, target, note });

  for (const name of current.classes.keys())
    if (absent("Class", name))
      leave("Class", name, { kind: "Class", name }, prune ? "the API deletes no class" : undefined);
  for (const name of current.groups.keys())
    if (absent("Group", name)) leave("Group", name, { kind: "Group", name });
  // Only the parameters of a class or group the folder declares are its to prune, and those of an agent it
  // gives a value to (agents are not declared: they register themselves).
  const parameterOwners = [
    ["ClassParameter", (owner: string) => !absent("Class", owner)],
    ["GroupParameter", (owner: string) => !absent("Group", owner)],
    ["AgentParameter", () => true],
  ] as const;
  for (const [kind, managed] of parameterOwners) {
    for (const [owner, list] of parameterLists(current, kind)) {
      if (!managed(owner)) continue;
      for (const name of new Set([...list.items, ...(list.staged ?? [])].map((entry) => entry.name)))
        if (absent(kind, `${owner}/${name}`)) leave(kind, `${owner}/${name}`, { kind, owner, name });
    }
  }
  for (const subscription of current.webhooks) {
    if (!objects.some((object) => object.kind === "Webhook" && sameWebhook(object.spec, subscription)))
      leave("Webhook", `${subscription.subscriptionId} ${webhookName(subscription)}`, {
        kind: "Webhook",
        subscriptionId: subscription.subscriptionId,
      });
  }
  return [...changes, ...left].sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind));
}

function changeFor(object: FleetObject, current: CurrentState): Change {
  const name = objectName(object);
  const same = (differences: string[]): Change =>
    differences.length === 0
      ? { action: "unchanged", kind: object.kind, name, object }
      : { action: "update", kind: object.kind, name, object, differences };
  const create: Change = { action: "create", kind: object.kind, name, object };
  switch (object.kind) {
    case "Settings":
      return same(differences(object.spec, current.settings));
    case "Class": {
      const agentClass = current.classes.get(object.name);
      return agentClass ? same(differences(object.spec, agentClass)) : create;
    }
    case "Group": {
      const group = current.groups.get(object.name);
      // A group's PUT replaces its whole definition: a field left out takes its default.
      const definition = {
        description: object.spec.description,
        query: object.spec.query,
        requireApproval: object.spec.requireApproval ?? false,
        maintenanceWindows: object.spec.maintenanceWindows ?? [],
        parameterPriority: object.spec.parameterPriority ?? 0,
      };
      return group ? same(differences(definition, group)) : create;
    }
    case "ClassParameter":
    case "GroupParameter":
    case "AgentParameter": {
      const entry = parameterInForce(parameterLists(current, object.kind).get(object.owner), object.name);
      if (!entry) return create;
      return same(differences({ value: undefined, secretRef: undefined, ...object.spec }, entry));
    }
    case "FlowVersion": {
      const version = current.flows.get(object.className)?.find(({ hash }) => hash === object.hash);
      if (!version) return create;
      // A version's bytes never change; only its label does, and only when the folder gives one.
      if (object.label === undefined) return same([]);
      return same(differences({ label: object.label || undefined }, version));
    }
    case "Asset":
      // An asset is its bytes: present, it is the file's, whatever it is called.
      return current.assets.has(object.sha256) ? same([]) : create;
    case "ClassResources": {
      const set = current.resourceSets.get(object.className);
      if (!set && object.spec.items.length === 0) return same([]);
      return set ? same(resourceDifferences(object, set)) : create;
    }
    case "Webhook": {
      // A folder declares what is in force: a subscription Beacon disabled for failed deliveries is enabled.
      const matching = current.webhooks.filter((subscription) => sameWebhook(object.spec, subscription));
      const subscription = matching.find(({ state }) => state === "active") ?? matching[0];
      if (!subscription) return create;
      if (subscription.state === "active") return same([]);
      const why = subscription.disabledReason ? ` (${subscription.disabledReason})` : "";
      return {
        action: "update",
        kind: object.kind,
        name,
        object,
        differences: differences({ state: "active" }, subscription).map((difference) => difference + why),
        subscriptionId: subscription.subscriptionId,
      };
    }
  }
}

/** The tenant's values of one kind of parameter, by the class, group or agent holding them. */
function parameterLists(
  current: CurrentState,
  kind: ParameterKind,
): Map<string, Schemas["ParameterEntryList"]> {
  return {
    ClassParameter: current.classParameters,
    GroupParameter: current.groupParameters,
    AgentParameter: current.agentParameters,
  }[kind];
}

/** A parameter's value as it will be: a staged change when the class has one (its removal: none), else in force. */
function parameterInForce(
  list: Schemas["ParameterEntryList"] | undefined,
  name: string,
): Schemas["ParameterEntry"] | undefined {
  const staged = list?.staged?.find((entry) => entry.name === name);
  if (staged) return staged.removes ? undefined : staged;
  return list?.items.find((entry) => entry.name === name);
}

/**
 * The items a resource set adds and removes, each as `asset at "path"` (the asset by its file, or name or id);
 * their order is not the set's.
 */
function resourceDifferences(
  object: Extract<FleetObject, { kind: "ClassResources" }>,
  set: Schemas["ResourceSet"],
): string[] {
  const place = (assetId: string, path: string | undefined) => `${assetId} at ${JSON.stringify(path ?? "")}`;
  const current = new Map(set.items.map((item) => [place(item.assetId, item.path), item.name]));
  const desired = new Map(
    object.spec.items.map(({ assetId, path }) => [
      place(assetId, path),
      object.assets.find(({ sha256 }) => sha256 === assetId)?.file ?? assetId,
    ]),
  );
  const shown = (key: string, label: string) => key.replace(/^[0-9a-f]{64}/, label);
  return [
    ...[...desired].filter(([key]) => !current.has(key)).map(([key, label]) => `adds ${shown(key, label)}`),
    ...[...current]
      .filter(([key]) => !desired.has(key))
      .map(([key, label]) => `removes ${shown(key, label)}`),
  ];
}

/**
 * A subscription's fields cannot be changed through the API, only created and deleted (and a disabled one
 * enabled): one of the folder's is the same as the tenant's when every field is, and a changed one is a new
 * subscription (the old one left alone, or deleted with --prune).
 */
function sameWebhook(spec: Schemas["SubscriptionRequest"], subscription: Schemas["Subscription"]): boolean {
  return (
    webhookName(spec) === webhookName(subscription) &&
    (spec.description ?? "") === (subscription.description ?? "")
  );
}

/** The desired fields whose value differs from the current one, as `field: current → desired`; null is unset. */
function differences(desired: object, current: object): string[] {
  const now = current as Record<string, unknown>;
  return Object.entries(desired)
    .filter(([field, value]) => canonical(value ?? undefined) !== canonical(now[field]))
    .map(([field, value]) => `${field}: ${shown(now[field])} → ${shown(value ?? undefined)}`);
}

/** JSON with object keys sorted, so that two values equal but for key order compare equal. */
function canonical(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) =>
      typeof item === "object" && item !== null && !Array.isArray(item)
        ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : item,
    ) ?? "undefined"
  );
}

function shown(value: unknown): string {
  return value === undefined ? "(unset)" : canonical(value);
}

export interface PlanSummary {
  create: number;
  update: number;
  delete: number;
  unchanged: number;
  unmanaged: number;
}

export function summary(changes: Change[]): PlanSummary {
  const count = (action: Action) => changes.filter((change) => change.action === action).length;
  return {
    create: count("create"),
    update: count("update"),
    delete: count("delete"),
    unchanged: count("unchanged"),
    unmanaged: count("unmanaged"),
  };
}

/** Whether applying the plan would make any request that changes something. */
export const changesAnything = (changes: Change[]) =>
  changes.some(({ action }) => action === "create" || action === "update" || action === "delete");

const SIGNS: Record<Action, string> = {
  create: "+",
  update: "~",
  delete: "-",
  unchanged: "=",
  unmanaged: " ",
};

/** The plan as people read it: one line an object, an update's differences below it, then the counts. */
export function renderPlan(changes: Change[]): string {
  const lines: string[] = [];
  for (const change of changes) {
    if (change.action === "unmanaged") continue;
    lines.push(`${SIGNS[change.action]} ${change.action} ${change.kind} ${change.name}`);
    if (change.action === "update")
      for (const difference of change.differences) lines.push(`    ${difference}`);
  }
  const unmanaged = changes.filter(
    (change): change is Extract<Change, { target: Target }> => change.action === "unmanaged",
  );
  if (unmanaged.length > 0) {
    lines.push("Not managed here, left alone:");
    for (const change of unmanaged)
      lines.push(`  ${change.kind} ${change.name}${change.note ? ` (${change.note})` : ""}`);
  }
  const counts = summary(changes);
  lines.push(
    `Plan: ${counts.create} to create, ${counts.update} to update, ${counts.delete} to delete, ${counts.unchanged} unchanged, ${counts.unmanaged} not managed here.`,
  );
  return lines.join("\n");
}

/** The subscription a webhook's change acts on, by id, for a script to follow: one it enables, deletes or leaves. */
function subscriptionOf(change: Change): { subscriptionId?: string } {
  if ("target" in change)
    return change.target.kind === "Webhook" ? { subscriptionId: change.target.subscriptionId } : {};
  return "subscriptionId" in change && change.subscriptionId !== undefined
    ? { subscriptionId: change.subscriptionId }
    : {};
}

/**
 * The plan as scripts read it: each change's action, kind, name, differences, where it was declared and, for a
 * webhook's, its subscription.
 */
export function planJson(changes: Change[]) {
  return {
    changes: changes.map((change) => ({
      action: change.action,
      kind: change.kind,
      name: change.name,
      ...("differences" in change ? { differences: change.differences } : {}),
      ...("object" in change ? { source: change.object.source } : {}),
      ...("note" in change && change.note ? { note: change.note } : {}),
      ...subscriptionOf(change),
    })),
    summary: summary(changes),
  };
}

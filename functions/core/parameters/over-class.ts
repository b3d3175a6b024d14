import type { AgentRecord } from "../agents/ports.js";
import type { ClassAgent } from "../flows/validation.js";
import type { LayerValues } from "./effective.js";
import type { ParameterRecord, ParameterValue } from "./model.js";

/**
 * A value an agent gets over its class's: one of a group it is a member of (named), or one of its own. An
 * agent's values over its class are what its cache entry holds for the heartbeat to render its flow id with.
 */
export interface ValueOverClass {
  name: string;
  value: ParameterValue;
  layer: "group" | "agent";
  /** The group whose value it is, for the group layer. */
  group?: string;
}

/** The values a group sets, as an agent's layers read them. */
export interface GroupValues {
  group: string;
  values: readonly Pick<ParameterRecord, "name" | "value">[];
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * An agent's values over its class, layer by layer: its group layer (each of its groups' values in
 * precedence order, lowest first, each overriding those before it: each name once), then its own, which
 * override the group layer's where both give a name (ownValuesOf keeps the later). Each layer by name.
 */
export function valuesOverClass(
  groups: readonly GroupValues[],
  own: readonly Pick<ParameterRecord, "name" | "value">[],
): ValueOverClass[] {
  const groupLayer = new Map<string, ValueOverClass>();
  for (const { group, values } of groups)
    for (const { name, value } of values) groupLayer.set(name, { name, value, layer: "group", group });
  return [
    ...[...groupLayer.values()].sort(byName),
    ...own.map(({ name, value }): ValueOverClass => ({ name, value, layer: "agent" })).sort(byName),
  ];
}

/** The values over the class split into the layers effective.ts lays over the class's. */
export const layersOverClass = (values: readonly ValueOverClass[]): LayerValues => ({
  group: values.filter((value) => value.layer === "group"),
  agent: values.filter((value) => value.layer === "agent"),
});

/**
 * What a reader of an agent's values over its class knows of it: `neverRegistered`, the registry never held
 * the agent, so it has no values of its own (they are set only for an agent the registry holds) to read.
 */
export interface ValuesOverClassHints {
  neverRegistered?: boolean;
  /**
   * The version of the tenant's groups the cache answered the agent's sighting with, before it registered: a
   * copy of the groups the container read at that version serves instead of a query of them, while no change
   * of a group holding values has replaced it (FleetHotState.groupsChanged) and for a minute at most.
   */
  groupsVersion?: string;
  /**
   * The cache did not answer the agent's sighting. A change of a group made meanwhile replaced no version, so the
   * container's copies, kept at a version the cache may answer again once back, are dropped instead of served.
   */
  cacheUnanswered?: boolean;
}

/**
 * An agent's values over its class, read: its record's (given, or read when a group holds values) groups'
 * and its own. What every rendering of an agent's flow reads in place of its own values alone.
 */
export type ValuesOverClassOf = (
  tenant: string,
  agentId: string,
  record?: AgentRecord,
  hints?: ValuesOverClassHints,
) => Promise<ValueOverClass[]>;

/** Agents' values over their classes, by agent id: read together, the tenant's groups once for them all. */
export type ValuesOverClassOfEach = (
  tenant: string,
  agentIds: readonly string[],
) => Promise<ReadonlyMap<string, ValueOverClass[]>>;

/**
 * A group's member as a change of the group's values is checked at: its class, its binary, and its values
 * over its class with the group's values as given (its other groups' and its own as they are).
 */
export interface GroupMemberValues extends ClassAgent {
  agentClass: string;
  overClass(groupValues: GroupValues["values"]): ValueOverClass[];
}

/** A group's first `limit` members, as a change of its values is checked at. */
export type GroupMembersOf = (tenant: string, group: string, limit: number) => Promise<GroupMemberValues[]>;

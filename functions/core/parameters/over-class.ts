import type { AgentRecord } from "../agents/ports.js";
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

/**
 * An agent's values over its class: each of its groups' values in precedence order, lowest first (each
 * overriding those before it), then its own, over them all. Each name once, by name.
 */
export function valuesOverClass(
  groups: readonly GroupValues[],
  own: readonly Pick<ParameterRecord, "name" | "value">[],
): ValueOverClass[] {
  const byName = new Map<string, ValueOverClass>();
  for (const { group, values } of groups)
    for (const { name, value } of values) byName.set(name, { name, value, layer: "group", group });
  for (const { name, value } of own) byName.set(name, { name, value, layer: "agent" });
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The values over the class split into the layers effective.ts lays over the class's. */
export const layersOverClass = (values: readonly ValueOverClass[]): LayerValues => ({
  group: values.filter((value) => value.layer === "group"),
  agent: values.filter((value) => value.layer === "agent"),
});

/**
 * An agent's values over its class, read: its record's (given, or read when a group holds values) groups'
 * and its own. What every rendering of an agent's flow reads in place of its own values alone.
 */
export type ValuesOverClassOf = (
  tenant: string,
  agentId: string,
  record?: AgentRecord,
) => Promise<ValueOverClass[]>;

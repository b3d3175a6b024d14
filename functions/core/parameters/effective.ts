import type { FlowParameter } from "../flows/parameters.js";
import {
  isSecretReference,
  type ParameterLayer,
  type ParameterRecord,
  type ParameterValue,
  type ValueLayer,
} from "./model.js";

/** The values set at each layer an agent is in, by layer; a layer it is in none of is left out. */
export type LayerValues = Partial<
  Record<ValueLayer, readonly (Pick<ParameterRecord, "name" | "value"> & { group?: string })[]>
>;

/** Lowest first: each layer's value overrides those before it. */
const RESOLUTION_ORDER: readonly ValueLayer[] = ["class", "group", "agent"];

/** One parameter as an agent gets it: what the flow declares of it, its value and the layer it comes from. */
export interface EffectiveParameter {
  name: string;
  /** The declaration of the flow version in force; absent for a value no declaration names. */
  declared?: FlowParameter;
  /** Absent when no layer gives a value, nor the flow a default. */
  value?: ParameterValue;
  layer?: ParameterLayer;
  /** The group whose value it is, for the group layer. */
  group?: string;
}

/**
 * Each parameter's effective value: the flow's default, overridden by the class's value, then the group's,
 * then the agent's. A sensitive parameter takes only secret references: a plain value set for a name the
 * flow declares sensitive (before the flow did) is passed over, so no secret ever travels as plain text.
 * Names the flow does not declare are listed with their values all the same, since the next version may.
 */
export function effectiveParameters(
  declared: readonly FlowParameter[] | undefined,
  layers: LayerValues,
): EffectiveParameter[] {
  const byName = new Map<string, EffectiveParameter>();
  for (const parameter of declared ?? []) {
    byName.set(parameter.name, {
      name: parameter.name,
      declared: parameter,
      ...(parameter.default !== undefined && !parameter.sensitive
        ? { value: { value: parameter.default }, layer: "flow" as const }
        : {}),
    });
  }
  for (const layer of RESOLUTION_ORDER) {
    for (const { name, value, group } of layers[layer] ?? []) {
      const current = byName.get(name) ?? { name };
      if (current.declared?.sensitive && !isSecretReference(value)) continue;
      const { group: _overridden, ...under } = current;
      byName.set(name, { ...under, value, layer, ...(group === undefined ? {} : { group }) });
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

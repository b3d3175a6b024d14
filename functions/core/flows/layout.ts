import { BeaconError } from "../errors.js";
import { asArray, asObject, asString, type JsonObject } from "../json.js";

/**
 * The flow layouts agents take. `nifi-json`: the NiFi flow layout with a `rootGroup` (MiNiFi Java 2.x
 * `flow.json`, and the C++ agent's JSON flow configuration in the same layout). `minifi-json` and
 * `minifi-yaml`: the C++ agent's own configuration layout (`Flow Controller`, `Processors`, …).
 */
export type FlowFormat = "nifi-json" | "minifi-json" | "minifi-yaml";

/**
 * The keys of the two group layouts agents read. The NiFi layout (`rootGroup`, MiNiFi Java 2.x `flow.json`
 * and the C++ agent's JSON in that layout) and the C++ agent's own configuration layout (`Flow Controller`),
 * whose root group is the document itself.
 */
export interface GroupLayout {
  processors: string;
  services: string;
  groups: string;
  properties: string;
  /** The C++ configuration names a component's type `class`; newer ones also accept `type`. */
  type: readonly string[];
  parameterContexts: string;
  parameters: string;
  inheritedParameterContexts: string;
  /** The key by which a process group names its parameter context. */
  parameterContextName: string;
}

export const nifiLayout: GroupLayout = {
  processors: "processors",
  services: "controllerServices",
  groups: "processGroups",
  properties: "properties",
  type: ["type"],
  parameterContexts: "parameterContexts",
  parameters: "parameters",
  inheritedParameterContexts: "inheritedParameterContexts",
  parameterContextName: "parameterContextName",
};

export const minifiLayout: GroupLayout = {
  processors: "Processors",
  services: "Controller Services",
  groups: "Process Groups",
  properties: "Properties",
  type: ["class", "type"],
  parameterContexts: "Parameter Contexts",
  parameters: "Parameters",
  inheritedParameterContexts: "Inherited Parameter Contexts",
  parameterContextName: "Parameter Context Name",
};

export const layoutOf = (format: FlowFormat): GroupLayout =>
  format === "nifi-json" ? nifiLayout : minifiLayout;

/** The group a flow's components sit in: the NiFi layout's `rootGroup`, the C++ layout's document itself. */
export const rootGroupOf = (document: JsonObject, format: FlowFormat): JsonObject =>
  format === "nifi-json" ? (asObject(document.rootGroup) ?? {}) : document;

/** Deepest process-group nesting Beacon walks; real flows nest a handful of levels. */
const MAX_GROUP_DEPTH = 64;

/**
 * Visits the root group and every group nested in it, without recursion so no nesting can exhaust the
 * stack; refuses a nesting past the bound.
 */
export function forEachGroup(
  root: JsonObject,
  layout: GroupLayout,
  visit: (group: JsonObject) => void,
): void {
  const pending: { group: JsonObject; depth: number }[] = [{ group: root, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.depth > MAX_GROUP_DEPTH)
      throw new BeaconError(
        "invalid_request",
        `The flow nests process groups deeper than ${MAX_GROUP_DEPTH} levels`,
      );
    visit(next.group);
    for (const child of asArray(next.group[layout.groups])) {
      const group = asObject(child);
      if (group) pending.push({ group, depth: next.depth + 1 });
    }
  }
}

/** A component's type as the layout names it, trimmed; undefined when it names none. */
export const componentTypeOf = (component: JsonObject, layout: GroupLayout): string | undefined =>
  layout.type
    .map((key) => asString(component[key]))
    .find((value) => value !== undefined)
    ?.trim();

/**
 * What keeps a designed flow from running, found as the operator edits, before Beacon's own validation of
 * the saved version: components no binary of the class lists, required properties without a value, values a
 * property does not allow, and processor relationships that neither go on nor end. With no manifest of the
 * class's agents known there is nothing to check components against: the page says so instead.
 */
import { descriptorFor, type PaletteEntry, shortType } from "./components.js";
import { type DesignerFlow, type FlowGraph, graphOf, groupsOf } from "./flow-model.js";

export interface FlowProblem {
  /** The component or connection it is about. */
  id: string;
  message: string;
}

/** A value the agent resolves when it runs: a parameter (`#{…}`) or Expression Language (`${…}`). */
const resolvedLater = (value: string) => /[#$]\{/.test(value);

export function problemsOf(
  graph: FlowGraph,
  palette: PaletteEntry[],
  classAgentCount: number,
): FlowProblem[] {
  const problems: FlowProblem[] = [];
  for (const node of graph.nodes) {
    if (node.kind !== "processor" && node.kind !== "controllerService") continue;
    const descriptor = descriptorFor(palette, node.type);
    if (!descriptor) {
      if (palette.length > 0)
        problems.push({
          id: node.id,
          message: `${node.name}: no binary of the class lists ${node.type ?? "its type"}`,
        });
      continue;
    }
    if (descriptor.agentCount < classAgentCount)
      problems.push({
        id: node.id,
        message: `${node.name}: only ${descriptor.agentCount} of the class's ${classAgentCount} agents can run ${shortType(descriptor.type)}`,
      });
    for (const property of descriptor.properties) {
      const value = node.properties[property.name];
      if (property.required && (value ?? property.defaultValue ?? "") === "")
        problems.push({ id: node.id, message: `${node.name}: ${property.displayName} is required` });
      const allowed = property.allowableValues.map((allowable) => allowable.value);
      if (value !== undefined && allowed.length > 0 && !allowed.includes(value) && !resolvedLater(value))
        problems.push({
          id: node.id,
          message: `${node.name}: ${property.displayName} must be one of ${allowed.join(", ")}`,
        });
    }
    if (node.kind !== "processor") continue;
    const carried = new Set(
      graph.edges.filter((edge) => edge.source === node.id).flatMap((edge) => edge.relationships),
    );
    for (const relationship of descriptor.relationships) {
      if (!carried.has(relationship) && !node.autoTerminated.includes(relationship))
        problems.push({
          id: node.id,
          message: `${node.name}: relationship ${relationship} is neither connected nor terminated`,
        });
    }
  }
  for (const edge of graph.edges) {
    const source = graph.nodes.find((node) => node.id === edge.source);
    if (source?.kind === "processor" && edge.relationships.length === 0)
      problems.push({ id: edge.id, message: `The connection from ${source.name} carries no relationship` });
  }
  return problems;
}

/**
 * The problems of every process group of the flow, each group checked as the root is; a nested group's
 * problems are named by the groups down to it (`inner › put: …`).
 */
export function flowProblemsOf(
  flow: DesignerFlow,
  palette: PaletteEntry[],
  classAgentCount: number,
): FlowProblem[] {
  return groupsOf(flow).flatMap(({ path, trail }) =>
    problemsOf(graphOf(flow, path), palette, classAgentCount).map((problem) =>
      trail.length === 0 ? problem : { ...problem, message: `${trail.join(" › ")} › ${problem.message}` },
    ),
  );
}

/** Why a dynamic property cannot be added to the component under this name, if it cannot. */
export function dynamicPropertyProblem(
  descriptor: PaletteEntry,
  properties: Record<string, string>,
  name: string,
): string | undefined {
  const trimmed = name.trim();
  if (trimmed === "") return "Give the property a name.";
  if (!descriptor.dynamicProperties) return `${shortType(descriptor.type)} takes no dynamic properties.`;
  const described = descriptor.properties.find(
    (property) => property.name === trimmed || property.displayName === trimmed,
  );
  if (described) return `${described.displayName} is a property of ${shortType(descriptor.type)} already.`;
  if (trimmed in properties) return `${trimmed} is set already.`;
  return undefined;
}

/**
 * What keeps a designed flow from running, found as the operator edits, before Beacon's own validation of
 * the saved version: components no binary of the class lists, required properties without a value, values a
 * property does not allow, and processor relationships that neither go on nor end. With no manifest of the
 * class's agents known there is nothing to check components against: the page says so instead.
 */
import { descriptorFor, type PaletteEntry, shortType } from "./components.js";
import {
  connectionSourcesOf,
  type DesignerFlow,
  type FlowGraph,
  type GroupPath,
  graphOf,
  groupsOf,
} from "./flow-model.js";

export interface FlowProblem {
  /** The component or connection it is about. */
  id: string;
  message: string;
  /** The groups it is inside, from the outermost: each of their nodes counts it too. */
  within?: GroupPath;
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
 * A nested group's ports that nothing takes from: an input port connected to nothing inside its group, an
 * output port to nothing outside it (in the group that holds it). What reaches such a port goes nowhere.
 */
function idlePortsOf(graph: FlowGraph, connectionSources: Set<string>): FlowProblem[] {
  return graph.nodes.flatMap((node) => {
    if (connectionSources.has(node.id)) return [];
    if (node.kind === "inputPort")
      return [
        { id: node.id, message: `${node.name}: this input port is connected to nothing inside its group` },
      ];
    if (node.kind === "outputPort")
      return [
        { id: node.id, message: `${node.name}: this output port is connected to nothing outside its group` },
      ];
    return [];
  });
}

/**
 * The problems of every process group of the flow, each group checked as the root is, and its ports if it is
 * nested; a nested group's problems are named by the groups down to it (`inner › put: …`).
 */
export function flowProblemsOf(
  flow: DesignerFlow,
  palette: PaletteEntry[],
  classAgentCount: number,
): FlowProblem[] {
  const connectionSources = connectionSourcesOf(flow);
  return groupsOf(flow).flatMap(({ path, trail }) => {
    const graph = graphOf(flow, path);
    const problems = problemsOf(graph, palette, classAgentCount);
    if (path.length === 0) return problems;
    return [...problems, ...idlePortsOf(graph, connectionSources)].map((problem) => ({
      ...problem,
      message: `${trail.join(" › ")} › ${problem.message}`,
      within: path,
    }));
  });
}

/** How many problems each node shows: its own, and a group's those of everything inside it. */
export function problemCountsOf(problems: readonly FlowProblem[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { id, within = [] } of problems)
    for (const counted of [id, ...within]) counts.set(counted, (counts.get(counted) ?? 0) + 1);
  return counts;
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

import { flowIdsOf } from "../flows/policy.js";

/** The flows a class's agents run, grouped by the flow id they report: what the console shows before adopting. */

/** Agent ids a group names at most: enough to pick one, few enough for a class of thousands. */
export const AGENTS_NAMED_PER_FLOW = 5;

export interface RunningFlow {
  flowId: string;
  agentCount: number;
  /** A few of its agents, by agent id. */
  agentIds: string[];
  /** The class's version that holds the flow: the flow id is its hash, or the id adopted with it. */
  flowHash?: string;
}

/**
 * A version of the class as the flows agents run are told by: its hash, the id it was adopted with, and, for
 * a version that declares parameters, the flow ids of its renderings that agents report: the class's, and each
 * of those agents with values of their own have.
 */
export interface HeldVersion {
  hash: string;
  adoptedFlowId?: string;
  renderedFlowIds?: string[];
}

/** Every flow id that names the version. */
export const heldFlowIdsOf = (version: HeldVersion): string[] => [
  ...flowIdsOf(version),
  ...(version.renderedFlowIds ?? []),
];

/**
 * Groups the class's agents by the flow id each reports, the most run first; agents reporting none are only
 * counted. `versions` are the class's flow versions, which say whether Beacon holds each flow.
 */
export function runningFlows(
  agents: { agentId: string; flowId?: string }[],
  versions: HeldVersion[],
): { flows: RunningFlow[]; withoutFlow: number } {
  const held = new Map<string, string>();
  for (const version of versions) for (const flowId of heldFlowIdsOf(version)) held.set(flowId, version.hash);
  const groups = new Map<string, RunningFlow>();
  let withoutFlow = 0;
  for (const { agentId, flowId } of agents) {
    if (flowId === undefined || flowId === "") {
      withoutFlow++;
      continue;
    }
    let group = groups.get(flowId);
    if (!group) {
      group = { flowId, agentCount: 0, agentIds: [], flowHash: held.get(flowId) };
      groups.set(flowId, group);
    }
    group.agentCount++;
    group.agentIds.push(agentId);
  }
  const flows = [...groups.values()]
    .map((group) => {
      const agentIds = group.agentIds.sort().slice(0, AGENTS_NAMED_PER_FLOW);
      return group.flowHash === undefined
        ? { flowId: group.flowId, agentCount: group.agentCount, agentIds }
        : { ...group, agentIds };
    })
    .sort((a, b) => b.agentCount - a.agentCount || a.flowId.localeCompare(b.flowId));
  return { flows, withoutFlow };
}

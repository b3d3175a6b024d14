/**
 * Where the designer draws each component: where the flow places it (the operator's moves are written into
 * the flow, in either layout), else dagre's layered layout, left to right along the connections, so a flow
 * opened without positions reads as it runs.
 */
import { layout as dagreLayout, Graph } from "@dagrejs/dagre";
import {
  type DesignerFlow,
  type FlowGraph,
  type GroupPath,
  graphOf,
  move,
  type Position,
} from "./flow-model.js";

export const NODE_WIDTH = 230;
export const NODE_HEIGHT = 72;
const NODE_GAP = 32;
const RANK_GAP = 96;
const MARGIN = 16;

/** Every component laid out afresh, ignoring where any was placed. */
export function autoLayout(graph: FlowGraph): Map<string, Position> {
  const layout = new Graph();
  layout.setGraph({ rankdir: "LR", nodesep: NODE_GAP, ranksep: RANK_GAP, marginx: MARGIN, marginy: MARGIN });
  layout.setDefaultEdgeLabel(() => ({}));
  for (const node of graph.nodes) layout.setNode(node.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const edge of graph.edges) layout.setEdge(edge.source, edge.target);
  dagreLayout(layout);
  // dagre places a node by its centre; the canvas by its top left corner.
  return new Map(
    graph.nodes.map((node) => {
      const { x, y } = layout.node(node.id);
      return [node.id, { x: x - NODE_WIDTH / 2, y: y - NODE_HEIGHT / 2 }];
    }),
  );
}

/** Where each component is drawn: its position in the flow, else where the automatic layout puts it. */
export function positionsOf(graph: FlowGraph): Map<string, Position> {
  const laidOut = graph.nodes.some((node) => !node.position)
    ? autoLayout(graph)
    : new Map<string, Position>();
  return new Map(
    graph.nodes.map((node) => [node.id, node.position ?? laidOut.get(node.id) ?? { x: MARGIN, y: MARGIN }]),
  );
}

/** Every component of the group at `path` placed where the automatic layout puts it ("Re-layout"). */
export function relayout(flow: DesignerFlow, path: GroupPath = []): DesignerFlow {
  let next = flow;
  for (const [id, position] of autoLayout(graphOf(flow, path))) next = move(next, id, position);
  return next;
}

/** Where a new component goes: right of the rightmost one, at the top, so a flow built in order reads left to right. */
export function freeSpot(positions: Iterable<Position>): Position {
  let right: number | undefined;
  for (const { x } of positions) right = Math.max(right ?? x, x);
  return { x: right === undefined ? MARGIN : right + NODE_WIDTH + RANK_GAP, y: MARGIN };
}

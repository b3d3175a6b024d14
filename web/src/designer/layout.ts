/**
 * Where the designer draws each component: where the flow or the operator placed it, else dagre's layered
 * layout, left to right along the connections, so a flow opened without positions reads as it runs. A flow in
 * MiNiFi C++'s format says nothing of positions, so there the operator's placements last as long as the page.
 */
import { layout as dagreLayout, Graph } from "@dagrejs/dagre";
import {
  carriesPositions,
  type DesignerFlow,
  type FlowGraph,
  graphOf,
  move,
  type Position,
} from "./flow-model.js";

export const NODE_WIDTH = 230;
export const NODE_HEIGHT = 72;
const NODE_GAP = 32;
const RANK_GAP = 96;
const MARGIN = 16;

/** What the designer edits: the flow, and where a flow that does not carry positions has its components drawn. */
export interface DesignerState {
  flow: DesignerFlow;
  /** Placements the flow's format cannot hold, by component id. */
  placed: Readonly<Record<string, Position>>;
}

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

/** Where each component is drawn: its position in the flow, else its placement this session, else laid out. */
export function positionsOf(graph: FlowGraph, placed: DesignerState["placed"]): Map<string, Position> {
  const unplaced = graph.nodes.some((node) => !node.position && !placed[node.id]);
  const laidOut = unplaced ? autoLayout(graph) : new Map<string, Position>();
  return new Map(
    graph.nodes.map((node) => [
      node.id,
      node.position ?? placed[node.id] ?? laidOut.get(node.id) ?? { x: MARGIN, y: MARGIN },
    ]),
  );
}

/** Places a component: in the flow when its format carries positions, else in the session's placements. */
export function moveNode(state: DesignerState, id: string, position: Position): DesignerState {
  if (carriesPositions(state.flow.format)) return { ...state, flow: move(state.flow, id, position) };
  return { ...state, placed: { ...state.placed, [id]: position } };
}

/** Every component placed where the automatic layout puts it ("Re-layout"). */
export function relayout(state: DesignerState): DesignerState {
  let next: DesignerState = { ...state, placed: {} };
  for (const [id, position] of autoLayout(graphOf(state.flow))) next = moveNode(next, id, position);
  return next;
}

/** Where a new component goes: right of the rightmost one, at the top, so a flow built in order reads left to right. */
export function freeSpot(positions: Iterable<Position>): Position {
  let right: number | undefined;
  for (const { x } of positions) right = Math.max(right ?? x, x);
  return { x: right === undefined ? MARGIN : right + NODE_WIDTH + RANK_GAP, y: MARGIN };
}

/**
 * Where the designer draws each component: dagre's layered layout, left to right along the connections, so
 * a flow opened from a file (whose positions, if any, were another tool's) reads as it runs.
 */
import { layout as dagreLayout, Graph } from "@dagrejs/dagre";
import type { FlowGraph } from "./flow-model.js";

export const NODE_WIDTH = 230;
export const NODE_HEIGHT = 72;

export function positionsOf(graph: FlowGraph): Map<string, { x: number; y: number }> {
  const layout = new Graph();
  layout.setGraph({ rankdir: "LR", nodesep: 32, ranksep: 96, marginx: 16, marginy: 16 });
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

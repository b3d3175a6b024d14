/**
 * The flow drawn as a graph with React Flow (through preact/compat): components laid out by dagre, each a
 * focusable node (Tab to it, Enter to select it), connections labelled with the relationships they carry.
 * A connection dragged from one node's handle to another's asks the page which relationships it carries.
 */
import {
  Background,
  type Connection,
  Controls,
  type Edge,
  Handle,
  type Node,
  type NodeChange,
  type NodeProps,
  Position,
  ReactFlow,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useMemo } from "preact/hooks";
import { shortType } from "./components";
import type { FlowGraph, FlowNode } from "./flow-model";
import { positionsOf } from "./layout";

const KIND_LABELS: Record<FlowNode["kind"], string> = {
  processor: "Processor",
  controllerService: "Controller service",
  funnel: "Funnel",
  processGroup: "Process group",
};

type ComponentNodeData = { component: FlowNode; problemCount: number };

function ComponentNode({ data }: NodeProps<Node<ComponentNodeData>>) {
  const { component, problemCount } = data;
  const connectable = component.kind === "processor" || component.kind === "funnel";
  return (
    <div class={`designer-node ${component.kind}${problemCount > 0 ? " invalid" : ""}`}>
      {connectable && <Handle type="target" position={Position.Left} />}
      <span class="kind">{KIND_LABELS[component.kind]}</span>
      <strong>{component.name}</strong>
      {component.type && <span class="type">{shortType(component.type)}</span>}
      {problemCount > 0 && (
        <span class="node-problems">
          {problemCount} problem{problemCount === 1 ? "" : "s"}
        </span>
      )}
      {connectable && <Handle type="source" position={Position.Right} />}
    </div>
  );
}

const NODE_TYPES = { component: ComponentNode };

export function FlowCanvas(props: {
  graph: FlowGraph;
  selected: string | undefined;
  problemCounts: Map<string, number>;
  onSelect: (id: string | undefined) => void;
  onConnect: (source: string, target: string) => void;
}) {
  const { graph, selected, problemCounts } = props;
  const positions = useMemo(() => positionsOf(graph), [graph]);
  const nodes: Node<ComponentNodeData>[] = graph.nodes.map((component) => ({
    id: component.id,
    type: "component",
    position: positions.get(component.id) ?? { x: 0, y: 0 },
    data: { component, problemCount: problemCounts.get(component.id) ?? 0 },
    selected: component.id === selected,
    ariaLabel: `${KIND_LABELS[component.kind]} ${component.name}${component.type ? ` (${shortType(component.type)})` : ""}`,
  }));
  const edges: Edge[] = graph.edges.map((edge) => ({
    id: edge.id,
    source: edge.source,
    target: edge.target,
    label: edge.relationships.join(", "),
    ariaLabel: `Connection ${edge.relationships.join(", ")} from ${nameOf(graph, edge.source)} to ${nameOf(graph, edge.target)}`,
    selected: edge.id === selected,
  }));
  const changed = (changes: NodeChange[]) => {
    for (const change of changes) {
      if (change.type === "select" && change.selected) props.onSelect(change.id);
    }
  };
  return (
    <div class="designer-canvas">
      <ReactFlow
        // Fitted again as components and connections come and go (each may move the layout); auto-layout
        // has no positions of the operator's to keep.
        key={`${graph.nodes.length} ${graph.edges.length}`}
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        nodesDraggable={false}
        onNodesChange={changed}
        onEdgeClick={(_event, edge) => props.onSelect(edge.id)}
        onPaneClick={() => props.onSelect(undefined)}
        onConnect={(connection: Connection) => props.onConnect(connection.source, connection.target)}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}

const nameOf = (graph: FlowGraph, id: string) => graph.nodes.find((node) => node.id === id)?.name ?? id;

/**
 * The flow drawn as a graph with React Flow (through preact/compat): components where the page places them,
 * each a focusable node (Tab to it, Enter to select it, arrow keys or the mouse to move it), connections
 * labelled with the relationships they carry. A connection dragged from one node's handle to another's asks
 * the page which relationships it carries; a move ends in one `onMove`, not one per frame of the drag.
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
import { useState } from "preact/hooks";
import { shortType } from "./components";
import type { FlowGraph, FlowNode, Position as Placement } from "./flow-model";

const KIND_LABELS: Record<FlowNode["kind"], string> = {
  processor: "Processor",
  controllerService: "Controller service",
  funnel: "Funnel",
  inputPort: "Input port",
  outputPort: "Output port",
  processGroup: "Process group",
};

type ComponentNodeData = { component: FlowNode; problemCount: number };

function ComponentNode({ data }: NodeProps<Node<ComponentNodeData>>) {
  const { component, problemCount } = data;
  const { kind } = component;
  // Inside a group its input port only sends on and its output port only receives; a nested group does both.
  const receives = kind !== "controllerService" && kind !== "inputPort";
  const sends = kind !== "controllerService" && kind !== "outputPort";
  return (
    <div class={`designer-node ${component.kind}${problemCount > 0 ? " invalid" : ""}`}>
      {receives && <Handle type="target" position={Position.Left} />}
      <span class="kind">{KIND_LABELS[component.kind]}</span>
      <strong>{component.name}</strong>
      {component.type && <span class="type">{shortType(component.type)}</span>}
      {problemCount > 0 && (
        <span class="node-problems">
          {problemCount} problem{problemCount === 1 ? "" : "s"}
        </span>
      )}
      {kind === "processGroup" && <span class="type">Double-click or Enter opens it</span>}
      {sends && <Handle type="source" position={Position.Right} />}
    </div>
  );
}

const NODE_TYPES = { component: ComponentNode };

export function FlowCanvas(props: {
  graph: FlowGraph;
  positions: Map<string, Placement>;
  selected: string | undefined;
  problemCounts: Map<string, number>;
  onSelect: (id: string | undefined) => void;
  /** Opens a nested group (double-click, or Enter on it). */
  onOpen: (id: string) => void;
  onConnect: (source: string, target: string) => void;
  onMove: (id: string, position: Placement) => void;
}) {
  const { graph, positions, selected, problemCounts } = props;
  // Where the nodes being dragged are now: drawn there until the drag ends and the page places them.
  const [dragged, setDragged] = useState<ReadonlyMap<string, Placement>>(new Map());
  // Each node's size as React Flow measured it, given back with the node: a node without one is hidden until
  // measured again, and a hidden node loses the keyboard focus that moves it.
  const [measured, setMeasured] = useState<ReadonlyMap<string, { width: number; height: number }>>(new Map());
  const nodes: Node<ComponentNodeData>[] = graph.nodes.map((component) => ({
    id: component.id,
    type: "component",
    position: dragged.get(component.id) ?? positions.get(component.id) ?? { x: 0, y: 0 },
    measured: measured.get(component.id),
    data: { component, problemCount: problemCounts.get(component.id) ?? 0 },
    selected: component.id === selected,
    ariaLabel: `${KIND_LABELS[component.kind]} ${component.name}${component.type ? ` (${shortType(component.type)})` : ""}${component.kind === "processGroup" ? ", Enter opens it" : ""}`,
  }));
  const edges: Edge[] = graph.edges.map((edge) => ({
    id: edge.id,
    source: edge.source,
    target: edge.target,
    label: edge.relationships.join(", "),
    ariaLabel: `Connection ${edge.relationships.join(", ")} from ${nameOf(graph, edge.source)} to ${nameOf(graph, edge.target)}`,
    selected: edge.id === selected,
  }));
  // Updates from the state they change: React Flow may call an earlier render's handler.
  const changed = (changes: NodeChange[]) => {
    for (const change of changes) {
      if (change.type === "select" && change.selected) props.onSelect(change.id);
      if (change.type === "dimensions" && change.dimensions) {
        const { id, dimensions } = change;
        setMeasured((sizes) => new Map(sizes).set(id, dimensions));
      }
      if (change.type === "position" && change.position) {
        const { id, position, dragging } = change;
        setDragged((moving) => {
          const next = new Map(moving);
          if (dragging) next.set(id, position);
          else next.delete(id);
          return next;
        });
        if (!dragging) props.onMove(id, position);
      }
    }
  };

  // Enter on a nested group opens it (Space still selects it), before React Flow takes Enter as selection.
  const keyDown = (event: KeyboardEvent) => {
    if (event.key !== "Enter") return;
    const id = (event.target as HTMLElement | null)?.closest(".react-flow__node")?.getAttribute("data-id");
    if (!id || graph.nodes.find((node) => node.id === id)?.kind !== "processGroup") return;
    event.preventDefault();
    event.stopPropagation();
    props.onOpen(id);
  };

  return (
    <div class="designer-canvas" onKeyDownCapture={keyDown}>
      <ReactFlow
        // Fitted again as components come and go, so that a new one is in view.
        key={graph.nodes.length}
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        onNodesChange={changed}
        onEdgeClick={(_event, edge) => props.onSelect(edge.id)}
        onNodeDoubleClick={(_event, node) => {
          if (graph.nodes.find((candidate) => candidate.id === node.id)?.kind === "processGroup")
            props.onOpen(node.id);
        }}
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

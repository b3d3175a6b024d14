import { useEffect, useMemo, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { type ConsoleClient, dataOf, type Schemas } from "../api/client";
import { useConsole } from "../components/console";
import { Page } from "../components/page";
import { ActionProblem, Loaded, useAction, useResource } from "../components/resource";
import { FlowCanvas } from "../designer/canvas";
import {
  type ClassBinary,
  descriptorFor,
  type PaletteEntry,
  type PropertyDescriptor,
  paletteOf,
  shortType,
} from "../designer/components";
import {
  addComponent,
  type ComponentKind,
  connect,
  type DesignerFlow,
  declareParameter,
  emptyFlow,
  endpointsOf,
  existingPath,
  type FlowGraph,
  type FlowNode,
  type GroupPath,
  graphOf,
  move,
  parseDesignerFlow,
  remove,
  rename,
  serialiseFlow,
  setAutoTerminated,
  setProperty,
  trailOf,
} from "../designer/flow-model";
import { type History, historyOf, record, redo, undo } from "../designer/history";
import { freeSpot, positionsOf, relayout } from "../designer/layout";
import {
  dynamicPropertyProblem,
  type FlowProblem,
  flowProblemsOf,
  problemCountsOf,
} from "../designer/problems";
import { shortHash } from "../format";
import { mayAct } from "../session";

const newId = () => crypto.randomUUID();

/** Agents of the class read to learn its binaries: enough for the palette's counts, bounded for a huge class. */
const MAX_AGENT_PAGES = 20;

interface Workspace {
  flow: DesignerFlow;
  /** The version opened; none for a new flow. */
  openedHash?: string;
  binaries: ClassBinary[];
  /** The class's agents read, with or without a known binary. */
  agentCount: number;
}

/** The class's binaries: which manifest each of its agents runs, counted, with each manifest's content. */
async function classBinaries(client: ConsoleClient, className: string) {
  const agentsByManifest = new Map<string, number>();
  let agentCount = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_AGENT_PAGES; page++) {
    const agents = await dataOf(
      client.GET("/api/v1/agents", { params: { query: { class: className, limit: 100, cursor } } }),
    );
    for (const agent of agents.items) {
      agentCount++;
      if (agent.manifestId)
        agentsByManifest.set(agent.manifestId, (agentsByManifest.get(agent.manifestId) ?? 0) + 1);
    }
    cursor = agents.nextCursor ?? undefined;
    if (!cursor) break;
  }
  const binaries = await Promise.all(
    [...agentsByManifest].map(async ([manifestId, count]) => {
      const path = { manifestId };
      const [summary, content] = await Promise.all([
        dataOf(client.GET("/api/v1/manifests/{manifestId}", { params: { path } })),
        dataOf(client.GET("/api/v1/manifests/{manifestId}/content", { params: { path }, parseAs: "text" })),
      ]);
      return {
        manifest: JSON.parse(content as string) as unknown,
        agentCount: count,
        agentType: summary.agentType,
      };
    }),
  );
  return { binaries, agentCount };
}

/** The flow to open: the version the URL names, else the class's target, else a new one in its agents' format. */
async function openFlow(
  client: ConsoleClient,
  className: string,
  version: string | undefined,
  agentTypes: (string | undefined)[],
): Promise<{ flow: DesignerFlow; openedHash?: string }> {
  // A version named opens without the class's record: a flow may be published before any agent of its class is.
  const hash =
    version ??
    (await dataOf(client.GET("/api/v1/classes/{className}", { params: { path: { className } } }))).flow
      ?.target;
  if (hash === undefined) {
    const javaOnly = agentTypes.length > 0 && agentTypes.every((type) => type?.includes("java"));
    return { flow: emptyFlow(javaOnly ? "nifi-json" : "minifi-yaml", className) };
  }
  const text = await dataOf(
    client.GET("/api/v1/classes/{className}/flows/{hash}/content", {
      params: { path: { className, hash } },
      parseAs: "text",
    }),
  );
  return { flow: parseDesignerFlow(text as string), openedHash: hash };
}

/** The flow designer of a class (`/classes/:className/designer?version=<hash>`). */
export function Designer() {
  const { client } = useConsole();
  const { params } = useRoute();
  const { query } = useLocation();
  const className = params.className ?? "";
  const version = query.version || undefined;
  const [workspace, reload] = useResource(
    async (): Promise<Workspace> => {
      const { binaries, agentCount } = await classBinaries(client, className);
      const opened = await openFlow(
        client,
        className,
        version,
        binaries.map((binary) => binary.agentType),
      );
      return { ...opened, binaries, agentCount };
    },
    `${className} ${version ?? ""}`,
  );
  return (
    <Page title={`Designer: ${className}`}>
      <p>
        <a href={`/classes/${encodeURIComponent(className)}`}>Back to the class</a>
      </p>
      <Loaded resource={workspace} what="the flow and the class's binaries" reload={reload}>
        {(data) => <Workbench key={`${className} ${version ?? ""}`} className={className} workspace={data} />}
      </Loaded>
    </Page>
  );
}

/** Whether a key press is the operator's undo (Ctrl+Z, ⌘Z) or redo (with Shift), outside a text field's own. */
function historyKey(event: KeyboardEvent): "undo" | "redo" | undefined {
  if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== "z") return undefined;
  const target = event.target as HTMLElement | null;
  if (target?.closest("input, textarea, select, [contenteditable]")) return undefined;
  return event.shiftKey ? "redo" : "undo";
}

function Workbench(props: { className: string; workspace: Workspace }) {
  const { session } = useConsole();
  const { workspace } = props;
  const [history, setHistory] = useState<History<DesignerFlow>>(() => historyOf(workspace.flow));
  const flow = history.present;
  const change = (next: (flow: DesignerFlow) => DesignerFlow) =>
    setHistory((current) => record(current, next(current.present)));
  const setFlow = (next: DesignerFlow) => change(() => next);
  useEffect(() => {
    const pressed = (event: KeyboardEvent) => {
      const step = historyKey(event);
      if (!step) return;
      event.preventDefault();
      setHistory(step === "undo" ? undo : redo);
    };
    document.addEventListener("keydown", pressed);
    return () => document.removeEventListener("keydown", pressed);
  }, []);
  const [selected, setSelected] = useState<string>();
  // The process group open on the canvas; an undo may take it away, and the canvas then shows its parent.
  const [openedPath, setOpenedPath] = useState<GroupPath>([]);
  const path = useMemo(() => existingPath(flow, openedPath), [flow, openedPath]);
  const open = (next: GroupPath) => {
    setOpenedPath(next);
    setSelected(undefined);
  };
  const palette = useMemo(() => paletteOf(workspace.binaries), [workspace.binaries]);
  const graph = useMemo(() => graphOf(flow, path), [flow, path]);
  const positions = useMemo(() => positionsOf(graph), [graph]);
  const problems = useMemo(
    () => flowProblemsOf(flow, palette, workspace.agentCount),
    [flow, palette, workspace],
  );
  const problemCounts = useMemo(() => problemCountsOf(problems), [problems]);
  const selectedNode = graph.nodes.find((node) => node.id === selected);
  const selectedEdge = graph.edges.find((edge) => edge.id === selected);
  const add = (kind: ComponentKind, type?: string) => {
    const added = addComponent(flow, { kind, type }, newId, path);
    setFlow(move(added.flow, added.id, freeSpot(positions.values())));
    setSelected(added.id);
  };
  return (
    <>
      <p>
        {workspace.openedHash ? `Version ${shortHash(workspace.openedHash)}` : "A new flow"} in the{" "}
        {flow.format} format · {workspace.agentCount} agent{workspace.agentCount === 1 ? "" : "s"},{" "}
        {workspace.binaries.length} binar{workspace.binaries.length === 1 ? "y" : "ies"}
      </p>
      <div class="form-actions" role="toolbar" aria-label="Edits">
        <button
          type="button"
          disabled={history.past.length === 0}
          aria-keyshortcuts="Control+Z"
          onClick={() => setHistory(undo)}
        >
          Undo
        </button>
        <button
          type="button"
          disabled={history.future.length === 0}
          aria-keyshortcuts="Control+Shift+Z"
          onClick={() => setHistory(redo)}
        >
          Redo
        </button>
        <button
          type="button"
          disabled={graph.nodes.length === 0}
          onClick={() => change((current) => relayout(current, path))}
        >
          Re-layout
        </button>
      </div>
      <GroupTrail flow={flow} path={path} onOpen={open} />
      <div class="designer">
        <Palette palette={palette} agentCount={workspace.agentCount} nested={path.length > 0} onAdd={add} />
        <FlowCanvas
          key={path.join("/")}
          graph={graph}
          positions={positions}
          selected={selected}
          problemCounts={problemCounts}
          onSelect={setSelected}
          onOpen={(id) => open([...path, id])}
          onConnect={(source, target) => {
            // A nested group's handles stand for its first output port and its first input port.
            const { sources, targets } = endpointsOf(flow, path);
            const from = sources.find((endpoint) => endpoint.drawnAs === source);
            const to = targets.find((endpoint) => endpoint.drawnAs === target);
            if (!from || !to) return;
            const node = graph.nodes.find((candidate) => candidate.id === from.id);
            const relationships = node && looseRelationships(node, graph, descriptorFor(palette, node.type));
            setFlow(
              connect(flow, { id: from.id, relationships: relationships ?? [] }, to.id, newId, path).flow,
            );
          }}
          onMove={(id, position) => change((current) => move(current, id, position))}
        />
      </div>
      <Problems problems={problems} />
      {selectedNode && (
        <ComponentForm
          key={selectedNode.id}
          node={selectedNode}
          graph={graph}
          descriptor={descriptorFor(palette, selectedNode.type)}
          edit={setFlow}
          flow={flow}
          path={path}
          onOpen={() => open([...path, selectedNode.id])}
          onRemoved={() => setSelected(undefined)}
        />
      )}
      {selectedEdge && (
        <section class="panel" aria-labelledby="connection-heading">
          <h2 id="connection-heading">Connection {selectedEdge.relationships.join(", ")}</h2>
          <button
            type="button"
            onClick={() => {
              setFlow(remove(flow, selectedEdge.id, path));
              setSelected(undefined);
            }}
          >
            Remove the connection
          </button>
        </section>
      )}
      {mayAct(session, "operator") && (
        <SaveFlow
          className={props.className}
          flow={flow}
          problems={problems}
          unchecked={workspace.binaries.length === 0}
        />
      )}
    </>
  );
}

/** What the palette adds besides the manifests' components; a group's ports only inside a nested group. */
const OTHER_KINDS: { kind: ComponentKind; label: string; nestedOnly?: boolean }[] = [
  { kind: "funnel", label: "Funnel" },
  { kind: "processGroup", label: "Process group" },
  { kind: "inputPort", label: "Input port", nestedOnly: true },
  { kind: "outputPort", label: "Output port", nestedOnly: true },
];

/** Where the canvas is in the flow's groups: the root, then each group opened, each a way back out. */
function GroupTrail(props: { flow: DesignerFlow; path: GroupPath; onOpen: (path: GroupPath) => void }) {
  const trail = trailOf(props.flow, props.path);
  return (
    <nav aria-label="Process groups" class="designer-trail">
      <ol>
        {trail.map((step, index) => (
          <li key={step.path.join("/")}>
            {index === trail.length - 1 ? (
              <span aria-current="location">{step.name}</span>
            ) : (
              <button type="button" class="link" onClick={() => props.onOpen(step.path)}>
                {step.name}
              </button>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}

/** The components the class's binaries list, filtered by name, each with how many agents can run it. */
function Palette(props: {
  palette: PaletteEntry[];
  agentCount: number;
  /** A nested group is open: it may have input and output ports. */
  nested: boolean;
  onAdd: (kind: ComponentKind, type?: string) => void;
}) {
  const [filter, setFilter] = useState("");
  const [choice, setChoice] = useState("");
  const shown = props.palette.filter((entry) => entry.type.toLowerCase().includes(filter.toLowerCase()));
  const option = (entry: PaletteEntry) => (
    <option key={`${entry.kind} ${entry.type}`} value={`${entry.kind} ${entry.type}`}>
      {shortType(entry.type)} — {entry.agentCount} of {props.agentCount} agents
    </option>
  );
  const submit = (event: Event) => {
    event.preventDefault();
    const [kind, type] = choice.split(" ") as [ComponentKind, string | undefined];
    if (OTHER_KINDS.some((other) => other.kind === kind)) return props.onAdd(kind);
    if (type) props.onAdd(kind, type);
  };
  return (
    <form class="designer-palette stacked" onSubmit={submit} aria-label="Add a component">
      <h2>Add a component</h2>
      <label>
        Filter
        <input type="search" value={filter} onInput={(event) => setFilter(event.currentTarget.value)} />
      </label>
      <label>
        Component
        <select
          name="component"
          size={12}
          value={choice}
          required
          onChange={(event) => setChoice(event.currentTarget.value)}
        >
          <optgroup label="Processors">
            {shown.filter((entry) => entry.kind === "processor").map(option)}
          </optgroup>
          <optgroup label="Controller services">
            {shown.filter((entry) => entry.kind === "controllerService").map(option)}
          </optgroup>
          <optgroup label="Other">
            {OTHER_KINDS.filter((other) => props.nested || !other.nestedOnly).map((other) => (
              <option key={other.kind} value={other.kind}>
                {other.label}
              </option>
            ))}
          </optgroup>
        </select>
      </label>
      {props.palette.length === 0 && (
        <p class="muted">
          Beacon knows no manifest of this class's agents yet: only funnels, ports and groups can be added.
        </p>
      )}
      <div class="form-actions">
        <button type="submit">Add</button>
      </div>
    </form>
  );
}

function Problems(props: { problems: FlowProblem[] }) {
  return (
    <section aria-labelledby="problems-heading" role="status">
      <h2 id="problems-heading">
        {props.problems.length === 0 ? "No problems found" : `Problems (${props.problems.length})`}
      </h2>
      {props.problems.length > 0 && (
        <ul class="designer-problems">
          {props.problems.map((problem) => (
            <li key={`${problem.id} ${problem.message}`}>{problem.message}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A processor's relationships that neither go on nor end yet: what a connection drawn from it carries. */
function looseRelationships(
  node: FlowNode,
  graph: FlowGraph,
  descriptor: PaletteEntry | undefined,
): string[] {
  const carried = new Set(
    graph.edges.filter((edge) => edge.source === node.id).flatMap((edge) => edge.relationships),
  );
  return (descriptor?.relationships ?? []).filter(
    (relationship) => !carried.has(relationship) && !node.autoTerminated.includes(relationship),
  );
}

/** Help for a property: its description, default, Expression Language scope. */
function propertyHelp(property: PropertyDescriptor): string {
  return [
    property.description,
    property.defaultValue !== undefined && `Default: ${property.defaultValue}.`,
    property.expressionLanguageScope !== "NONE" &&
      `Takes Expression Language (${property.expressionLanguageScope}).`,
    property.sensitive && "Sensitive: give the name of a parameter that holds it.",
  ]
    .filter(Boolean)
    .join(" ");
}

/** The value a sensitive property's field shows: the parameter it names, from `#{name}`. */
const parameterNamed = (value: string | undefined) => /^#\{(.+)\}$/.exec(value ?? "")?.[1] ?? value ?? "";

function PropertyField(props: {
  property: PropertyDescriptor;
  value: string | undefined;
  fieldId: string;
  onChange: (value: string | undefined) => void;
}) {
  const { property, value, fieldId } = props;
  const help = propertyHelp(property);
  const helpId = `${fieldId}-help`;
  const label = `${property.displayName}${property.required ? " (required)" : ""}${property.sensitive ? " — parameter name" : ""}`;
  const changed = (next: string) => {
    if (next === "") return props.onChange(undefined);
    props.onChange(property.sensitive ? `#{${next}}` : next);
  };
  return (
    <div class="designer-property">
      <label for={fieldId}>{label}</label>
      {property.allowableValues.length > 0 ? (
        <select
          id={fieldId}
          value={value ?? ""}
          aria-describedby={help ? helpId : undefined}
          onChange={(event) => changed(event.currentTarget.value)}
        >
          <option value="">
            {property.defaultValue === undefined ? "(not set)" : `(default: ${property.defaultValue})`}
          </option>
          {property.allowableValues.map((allowed) => (
            <option key={allowed.value} value={allowed.value}>
              {allowed.displayName}
            </option>
          ))}
          {value !== undefined && !property.allowableValues.some((allowed) => allowed.value === value) && (
            <option value={value}>{value}</option>
          )}
        </select>
      ) : (
        <input
          id={fieldId}
          type="text"
          value={property.sensitive ? parameterNamed(value) : (value ?? "")}
          placeholder={property.sensitive ? "parameter name" : property.defaultValue}
          aria-describedby={help ? helpId : undefined}
          onChange={(event) => changed(event.currentTarget.value)}
        />
      )}
      {help && (
        <p id={helpId} class="muted">
          {help}
        </p>
      )}
    </div>
  );
}

/** The selected component: its name, its properties from the manifest's descriptors, its relationships. */
function ComponentForm(props: {
  node: FlowNode;
  graph: FlowGraph;
  descriptor: PaletteEntry | undefined;
  flow: DesignerFlow;
  path: GroupPath;
  edit: (flow: DesignerFlow) => void;
  onOpen: () => void;
  onRemoved: () => void;
}) {
  const { node, graph, descriptor, flow, path, edit } = props;
  const described = new Set(descriptor?.properties.map((property) => property.name));
  // Properties the flow sets that the manifest does not describe: dynamic ones, or of another binary.
  const others = Object.keys(node.properties).filter((name) => !described.has(name));
  const fieldId = (name: string) => `property-${node.id}-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const headingId = `component-${node.id}`;
  return (
    <section class="panel designer-form" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {node.name}
        {node.type && <span class="muted"> · {shortType(node.type)}</span>}
      </h2>
      {descriptor?.description && <p class="muted">{descriptor.description}</p>}
      {node.kind === "processGroup" && (
        <div class="form-actions">
          <button type="button" onClick={props.onOpen}>
            Open {node.name}
          </button>
        </div>
      )}
      {node.kind !== "funnel" && (
        <label>
          Name
          <input
            type="text"
            value={node.name}
            onChange={(event) => edit(rename(flow, node.id, event.currentTarget.value))}
          />
        </label>
      )}
      {((descriptor && descriptor.properties.length > 0) || others.length > 0) && (
        <fieldset>
          <legend>Properties</legend>
          {descriptor?.properties.map((property) => (
            <PropertyField
              key={property.name}
              property={property}
              value={node.properties[property.name]}
              fieldId={fieldId(property.name)}
              onChange={(value) => {
                const set = setProperty(flow, node.id, property.name, value);
                const parameter = property.sensitive ? parameterNamed(value) : "";
                edit(parameter === "" ? set : declareParameter(set, parameter, true, newId, path));
              }}
            />
          ))}
          {others.map((name) => (
            <div key={name} class="designer-dynamic">
              <PropertyField
                property={{
                  name,
                  displayName: name,
                  required: false,
                  sensitive: false,
                  allowableValues: [],
                  expressionLanguageScope: "NONE",
                }}
                value={node.properties[name]}
                fieldId={fieldId(name)}
                onChange={(value) => edit(setProperty(flow, node.id, name, value ?? ""))}
              />
              <button
                type="button"
                class="link"
                onClick={() => edit(setProperty(flow, node.id, name, undefined))}
              >
                Remove {name}
              </button>
            </div>
          ))}
        </fieldset>
      )}
      {descriptor?.dynamicProperties && (
        <AddProperty
          node={node}
          descriptor={descriptor}
          onAdd={(name, value) => edit(setProperty(flow, node.id, name, value))}
        />
      )}
      {node.kind === "processor" && descriptor && descriptor.relationships.length > 0 && (
        <fieldset>
          <legend>Relationships that end here</legend>
          {descriptor.relationships.map((relationship) => (
            <label key={relationship} class="inline">
              <input
                type="checkbox"
                checked={node.autoTerminated.includes(relationship)}
                onChange={(event) =>
                  edit(setAutoTerminated(flow, node.id, relationship, event.currentTarget.checked))
                }
              />
              Terminate {relationship}
            </label>
          ))}
        </fieldset>
      )}
      {node.kind !== "controllerService" && node.kind !== "outputPort" && (
        <ConnectForm node={node} graph={graph} descriptor={descriptor} flow={flow} path={path} edit={edit} />
      )}
      <div class="form-actions">
        <button
          type="button"
          onClick={() => {
            edit(remove(flow, node.id, path));
            props.onRemoved();
          }}
        >
          Remove {node.name}
        </button>
      </div>
    </section>
  );
}

/** A dynamic property: one the component's manifest does not describe but says it takes, named by the operator. */
function AddProperty(props: {
  node: FlowNode;
  descriptor: PaletteEntry;
  onAdd: (name: string, value: string) => void;
}) {
  const { node, descriptor } = props;
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [problem, setProblem] = useState<string>();
  const problemId = `add-property-${node.id}-problem`;
  const submit = (event: Event) => {
    event.preventDefault();
    const refused = dynamicPropertyProblem(descriptor, node.properties, name);
    setProblem(refused);
    if (refused) return;
    props.onAdd(name.trim(), value);
    setName("");
    setValue("");
  };
  return (
    <form class="stacked" onSubmit={submit} aria-label={`Add a property to ${node.name}`}>
      <fieldset>
        <legend>Add a dynamic property</legend>
        <label>
          Property name
          <input
            type="text"
            value={name}
            aria-invalid={problem !== undefined}
            aria-describedby={problem ? problemId : undefined}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        </label>
        <label>
          Property value
          <input type="text" value={value} onInput={(event) => setValue(event.currentTarget.value)} />
        </label>
        {problem && (
          <p id={problemId} class="problem" role="alert">
            {problem}
          </p>
        )}
        <div class="form-actions">
          <button type="submit">Add property</button>
        </div>
      </fieldset>
    </form>
  );
}

/**
 * Connects the selected processor's relationships (a funnel's or input port's output, a nested group's
 * output port) to another processor, funnel or output port of the group, or a nested group's input port.
 */
function ConnectForm(props: {
  node: FlowNode;
  graph: FlowGraph;
  descriptor: PaletteEntry | undefined;
  flow: DesignerFlow;
  path: GroupPath;
  edit: (flow: DesignerFlow) => void;
}) {
  const { node, graph, descriptor } = props;
  const endpoints = endpointsOf(props.flow, props.path);
  // A nested group's connections start at one of its output ports.
  const starts = endpoints.sources.filter((endpoint) => endpoint.drawnAs === node.id);
  const [from, setFrom] = useState(starts[0]?.id ?? "");
  const targets = endpoints.targets.filter((candidate) => candidate.id !== from);
  const relationships = node.kind === "processor" ? (descriptor?.relationships ?? []) : [];
  const [chosen, setChosen] = useState<string[]>(() => looseRelationships(node, graph, descriptor));
  const [target, setTarget] = useState(targets[0]?.id ?? "");
  const outgoing = graph.edges.filter((edge) => edge.source === node.id);
  const submit = (event: Event) => {
    event.preventDefault();
    if (!targets.some((candidate) => candidate.id === target)) return;
    const carried = node.kind === "processor" ? chosen : [];
    props.edit(connect(props.flow, { id: from, relationships: carried }, target, newId, props.path).flow);
  };
  return (
    <form class="stacked" onSubmit={submit} aria-label={`Connect ${node.name}`}>
      <fieldset>
        <legend>Connect to another component</legend>
        {node.kind === "processGroup" && (
          <label>
            From
            <select value={from} onChange={(event) => setFrom(event.currentTarget.value)}>
              {starts.map((start) => (
                <option key={start.id} value={start.id}>
                  {start.name}
                </option>
              ))}
            </select>
          </label>
        )}
        {relationships.map((relationship) => (
          <label key={relationship} class="inline">
            <input
              type="checkbox"
              checked={chosen.includes(relationship)}
              onChange={(event) =>
                setChosen(
                  event.currentTarget.checked
                    ? [...chosen, relationship]
                    : chosen.filter((name) => name !== relationship),
                )
              }
            />
            {relationship}
          </label>
        ))}
        <label>
          To
          <select value={target} onChange={(event) => setTarget(event.currentTarget.value)}>
            {targets.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name}
              </option>
            ))}
          </select>
        </label>
        <div class="form-actions">
          <button type="submit" disabled={targets.length === 0 || from === ""}>
            Connect
          </button>
        </div>
      </fieldset>
      {outgoing.length > 0 && (
        <ul>
          {outgoing.map((edge) => (
            <li key={edge.id}>
              {edge.relationships.join(", ") || "out"} →{" "}
              {graph.nodes.find((other) => other.id === edge.target)?.name}{" "}
              <button
                type="button"
                class="link"
                onClick={() => props.edit(remove(props.flow, edge.id, props.path))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}

/**
 * Publishes the flow as a new version of the class, in its format, then shows Beacon's own validation of it
 * against the class's agents.
 */
function SaveFlow(props: {
  className: string;
  flow: DesignerFlow;
  problems: FlowProblem[];
  /** Beacon knows the manifest of none of the class's agents: the flow's components could not be checked. */
  unchecked: boolean;
}) {
  const { client } = useConsole();
  const [state, run] = useAction();
  const [saved, setSaved] = useState<{
    version: Schemas["FlowVersion"];
    validation: Schemas["FlowValidation"];
  }>();
  // Whether the operator asked to save while the flow had problems: the refusal shows until they are fixed.
  const [refused, setRefused] = useState(false);
  const [uncheckedAccepted, setUncheckedAccepted] = useState(false);
  const [unconfirmed, setUnconfirmed] = useState(false);
  const classUrl = `/classes/${encodeURIComponent(props.className)}`;
  const save = async () => {
    setSaved(undefined);
    setRefused(props.problems.length > 0);
    setUnconfirmed(props.unchecked && !uncheckedAccepted);
    if (props.problems.length > 0 || (props.unchecked && !uncheckedAccepted)) return;
    const { text, contentType } = serialiseFlow(props.flow);
    const result = await run(async () => {
      const path = { className: props.className };
      const version = await dataOf(
        client.POST("/api/v1/classes/{className}/flows", {
          // Beacon's own validation first: a version some of the class's agents could not run is not stored,
          // saved unchecked or not.
          params: { path, query: { requireCompatible: true } },
          body: text,
          bodySerializer: (body) => body,
          headers: { "content-type": contentType },
        }),
      );
      const validation = await dataOf(
        client.GET("/api/v1/classes/{className}/flows/{hash}/validation", {
          params: { path: { ...path, hash: version.hash } },
        }),
      );
      return { version, validation };
    });
    if (result) setSaved(result);
  };
  return (
    <section aria-labelledby="save-heading">
      <h2 id="save-heading">Save</h2>
      {props.unchecked && (
        <label class="inline">
          <input
            type="checkbox"
            checked={uncheckedAccepted}
            onChange={(event) => setUncheckedAccepted(event.currentTarget.checked)}
          />
          Save anyway: Beacon knows the manifest of none of this class's agents, so it could not check that
          they can run this flow's components
        </label>
      )}
      <div class="form-actions">
        <button type="button" disabled={state.status === "busy"} onClick={save}>
          {state.status === "busy" ? "Saving…" : "Save as a new version"}
        </button>
      </div>
      {refused && props.problems.length > 0 && (
        <p class="problem" role="alert">
          Fix the {props.problems.length} problem{props.problems.length === 1 ? "" : "s"} above first.
        </p>
      )}
      {unconfirmed && props.unchecked && !uncheckedAccepted && (
        <p class="problem" role="alert">
          Confirm that you save it unchecked first.
        </p>
      )}
      <ActionProblem state={state} />
      {saved && (
        <div role="status">
          <p>
            Saved version{" "}
            <a href={`${classUrl}?${new URLSearchParams({ flow: saved.version.hash })}`}>
              {shortHash(saved.version.hash)}
            </a>
            .
          </p>
          <p class={saved.validation.compatible ? "verdict good" : "verdict bad"}>
            {saved.validation.agentCount === 0
              ? "The class has no agent to check it against yet."
              : saved.validation.compatible
                ? `Beacon's validation: all ${saved.validation.agentCount} agents of the class can run it.`
                : `Beacon's validation: ${saved.validation.incompatibleAgentCount} of ${saved.validation.agentCount} agents cannot run it.`}
          </p>
          {/* The rollouts page's own form takes it from here, the version chosen: one rollout workflow. */}
          <p>
            <a
              class="button"
              href={`/rollouts?${new URLSearchParams({ className: props.className, flow: saved.version.hash })}`}
            >
              Roll it out
            </a>
          </p>
        </div>
      )}
    </section>
  );
}

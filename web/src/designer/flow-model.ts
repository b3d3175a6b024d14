/**
 * The flow designer's model: a flow document as the class's agents run it, read as a graph of components
 * and connections and edited in place. Every edit returns a new document that keeps all it does not touch
 * (scheduling, bundles, parameter contexts), so a flow opened and saved unchanged says what it said. A
 * nested process group is opened by its path and edited as the root group is. Pure: no browser, no requests.
 */
import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  parseDocument,
  stringify as stringifyYaml,
  type Node as YamlNode,
} from "yaml";
import {
  type FlowFormat,
  type GroupLayout,
  minifiLayout,
  nifiLayout,
} from "../../../functions/core/flows/layout.js";
import { asArray, asObject, asString, type JsonObject } from "../../../functions/core/json.js";

export type { FlowFormat };

export type ComponentKind =
  | "processor"
  | "controllerService"
  | "funnel"
  | "inputPort"
  | "outputPort"
  | "processGroup";

/** Where a process group sits: the ids of the groups from the root down to it; the root group is `[]`. */
export type GroupPath = readonly string[];

/** A flow document of one of the layouts agents run, parsed. */
export interface DesignerFlow {
  format: FlowFormat;
  document: JsonObject;
  /** The YAML text as read, its comments included: written back with the edits applied to it. */
  yaml?: Document;
}

/** Where a component is drawn on the canvas, its top left corner. */
export interface Position {
  x: number;
  y: number;
}

/** A component of a process group, as the designer draws it. */
export interface FlowNode {
  id: string;
  kind: ComponentKind;
  name: string;
  /** The component's type (`org.apache.nifi.minifi.processors.GenerateFlowFile`); none for funnels and groups. */
  type?: string;
  properties: Record<string, string>;
  /** The processor's relationships that end there rather than go on. */
  autoTerminated: string[];
  /** Where the flow places it; none means the designer lays it out. */
  position?: Position;
}

/**
 * A connection of a group: from one component, for the relationships it carries, to another. A connection
 * to or from a port of a nested group is drawn to or from that group.
 */
export interface FlowEdge {
  id: string;
  source: string;
  target: string;
  relationships: string[];
}

export interface FlowGraph {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

/** What the two layouts call the parts of a group that FlowFormat's GroupLayout does not name. */
interface GraphKeys {
  group: GroupLayout;
  id: string;
  funnels: string;
  inputPorts: string;
  outputPorts: string;
  connections: string;
  autoTerminated: string;
}

const nifiKeys: GraphKeys = {
  group: nifiLayout,
  id: "identifier",
  funnels: "funnels",
  inputPorts: "inputPorts",
  outputPorts: "outputPorts",
  connections: "connections",
  autoTerminated: "autoTerminatedRelationships",
};

const minifiKeys: GraphKeys = {
  group: minifiLayout,
  id: "id",
  funnels: "Funnels",
  inputPorts: "Input Ports",
  outputPorts: "Output Ports",
  connections: "Connections",
  autoTerminated: "auto-terminated relationships list",
};

const keysOf = (format: FlowFormat): GraphKeys => (format === "nifi-json" ? nifiKeys : minifiKeys);

const KIND_KEYS: Record<ComponentKind, (keys: GraphKeys) => string> = {
  processor: (keys) => keys.group.processors,
  controllerService: (keys) => keys.group.services,
  funnel: (keys) => keys.funnels,
  inputPort: (keys) => keys.inputPorts,
  outputPort: (keys) => keys.outputPorts,
  processGroup: (keys) => keys.group.groups,
};

const KINDS = Object.keys(KIND_KEYS) as ComponentKind[];

/** The NiFi layout's connection endpoint types. */
const NIFI_ENDPOINT_TYPES: Partial<Record<ComponentKind, string>> = {
  processor: "PROCESSOR",
  funnel: "FUNNEL",
  inputPort: "INPUT_PORT",
  outputPort: "OUTPUT_PORT",
};

/** What a new component of a kind without a type is called until renamed. */
const DEFAULT_NAMES: Partial<Record<ComponentKind, string>> = {
  funnel: "Funnel",
  inputPort: "Input port",
  outputPort: "Output port",
  processGroup: "Process group",
};

export class FlowModelError extends Error {}

/** Reads a flow's text: JSON or YAML, in the NiFi layout (`rootGroup`) or the C++ one (`Flow Controller`). */
export function parseDesignerFlow(text: string): DesignerFlow {
  const json = text.trimStart().startsWith("{");
  let value: unknown;
  let yaml: Document | undefined;
  try {
    if (json) value = JSON.parse(text);
    else {
      yaml = parseDocument(text);
      const [error] = yaml.errors;
      if (error) throw error;
      value = yaml.toJS();
    }
  } catch (error) {
    throw new FlowModelError(`The flow is not valid ${json ? "JSON" : "YAML"}: ${(error as Error).message}`);
  }
  const document = asObject(value);
  if (document && asObject(document.rootGroup) && json) return { format: "nifi-json", document };
  if (document && asObject(document["Flow Controller"]))
    return json
      ? { format: "minifi-json", document }
      : { format: "minifi-yaml", document, ...(yaml && { yaml }) };
  throw new FlowModelError("The flow has neither a rootGroup nor a Flow Controller");
}

/** An empty flow of the format, named as its class is. */
export function emptyFlow(format: FlowFormat, name: string): DesignerFlow {
  if (format === "nifi-json")
    return {
      format,
      document: {
        encodingVersion: { majorVersion: 2, minorVersion: 0 },
        maxTimerDrivenThreadCount: 1,
        controllerServices: [],
        parameterContexts: [],
        rootGroup: {
          identifier: "root",
          name,
          processors: [],
          controllerServices: [],
          funnels: [],
          processGroups: [],
          connections: [],
        },
      },
    };
  return {
    format,
    document: {
      "MiNiFi Config Version": 3,
      "Flow Controller": { name },
      Processors: [],
      "Controller Services": [],
      Funnels: [],
      Connections: [],
    },
  };
}

/**
 * The flow's text as the agents take it, with its content type. A YAML flow read from text is written as
 * that text with the edits applied, so its comments, order and quoting stay wherever the edits did not reach.
 */
export function serialiseFlow(flow: DesignerFlow): { text: string; contentType: string } {
  if (flow.format === "minifi-yaml") {
    if (!flow.yaml) return { text: stringifyYaml(flow.document), contentType: "application/yaml" };
    const written = flow.yaml.clone();
    written.contents = reconciled(written, written.contents, flow.document) as typeof written.contents;
    return { text: written.toString(), contentType: "application/yaml" };
  }
  return { text: `${JSON.stringify(flow.document, null, 2)}\n`, contentType: "application/json" };
}

/** How a list's item is recognised across edits: its id or name, else its place. */
const itemKey = (value: unknown, index: number): string => {
  const item = asObject(value);
  const name = item && (asString(item.id) ?? asString(item.name));
  return name === undefined ? `#${index}` : `${name}`;
};

/**
 * The YAML node `node` made to say `value`: maps and lists edited in place (a list's items matched by id or
 * name), a scalar kept when its value is the same, so comments stay on every node the edit did not replace.
 */
function reconciled(yaml: Document, node: unknown, value: unknown): YamlNode {
  const object = asObject(value);
  if (isMap(node) && object) {
    for (const pair of [...node.items]) {
      const key = isScalar(pair.key) ? pair.key.value : pair.key;
      if (!(String(key) in object)) node.delete(pair.key);
    }
    for (const [key, child] of Object.entries(object)) {
      const existing = node.get(key, true);
      const next = existing === undefined ? yaml.createNode(child) : reconciled(yaml, existing, child);
      if (next !== existing) node.set(key, next);
    }
    return node;
  }
  if (isSeq(node) && Array.isArray(value)) {
    const known = new Map(
      node.items.map((item, index) => [itemKey(isMap(item) ? item.toJSON() : item, index), item]),
    );
    node.items = value.map((child, index) => {
      const existing = known.get(itemKey(child, index));
      return existing === undefined ? yaml.createNode(child) : reconciled(yaml, existing, child);
    });
    return node;
  }
  if (isScalar(node) && node.value === value) return node;
  return yaml.createNode(value);
}

const rootOf = (flow: DesignerFlow): JsonObject =>
  flow.format === "nifi-json" ? (asObject(flow.document.rootGroup) ?? {}) : flow.document;

/** The flow with its root group replaced. */
const withRoot = (flow: DesignerFlow, root: JsonObject): DesignerFlow =>
  flow.format === "nifi-json"
    ? { ...flow, document: { ...flow.document, rootGroup: root } }
    : { ...flow, document: root };

/** A component's id; older C++ configurations name some components by name only. */
const idOf = (component: JsonObject | undefined, keys: GraphKeys): string | undefined =>
  component && (asString(component[keys.id]) ?? asString(component.name));

const childGroupsOf = (group: JsonObject, keys: GraphKeys): JsonObject[] =>
  asArray(group[keys.group.groups]).flatMap((entry) => {
    const child = asObject(entry);
    return child ? [child] : [];
  });

/** The group at `path`; refuses a path the flow does not have. */
function groupAt(flow: DesignerFlow, path: GroupPath): JsonObject {
  const keys = keysOf(flow.format);
  let group = rootOf(flow);
  for (const id of path) {
    const child = childGroupsOf(group, keys).find((entry) => idOf(entry, keys) === id);
    if (!child) throw new FlowModelError(`The flow has no process group ${id}`);
    group = child;
  }
  return group;
}

/** The flow with the group at `path` replaced. */
function withGroupAt(flow: DesignerFlow, path: GroupPath, group: JsonObject): DesignerFlow {
  if (path.length === 0) return withRoot(flow, group);
  const keys = keysOf(flow.format);
  const parentPath = path.slice(0, -1);
  const parent = groupAt(flow, parentPath);
  const groups = asArray(parent[keys.group.groups]).map((entry) =>
    idOf(asObject(entry), keys) === path.at(-1) ? group : entry,
  );
  return withGroupAt(flow, parentPath, { ...parent, [keys.group.groups]: groups });
}

/** The group's name: the C++ layout names its root group in `Flow Controller`. */
function groupName(flow: DesignerFlow, group: JsonObject, path: GroupPath): string | undefined {
  if (flow.format !== "nifi-json" && path.length === 0)
    return asString(asObject(group["Flow Controller"])?.name);
  return asString(group.name);
}

/** Every process group of the flow, the root first, each with the names from the root down to it. */
export function groupsOf(flow: DesignerFlow): { path: GroupPath; trail: string[] }[] {
  const keys = keysOf(flow.format);
  const found: { path: GroupPath; trail: string[] }[] = [];
  const pending = [{ group: rootOf(flow), path: [] as GroupPath, trail: [] as string[] }];
  for (let next = pending.shift(); next; next = pending.shift()) {
    found.push({ path: next.path, trail: next.trail });
    for (const child of childGroupsOf(next.group, keys)) {
      const id = idOf(child, keys);
      if (id !== undefined)
        pending.push({
          group: child,
          path: [...next.path, id],
          trail: [...next.trail, asString(child.name) ?? id],
        });
    }
  }
  return found;
}

/** The names of the groups from the root (the flow's name) down to the one at `path`, for a breadcrumb. */
export function trailOf(flow: DesignerFlow, path: GroupPath): { path: GroupPath; name: string }[] {
  return [[], ...path.map((_id, index) => path.slice(0, index + 1))].map((prefix) => ({
    path: prefix,
    name: groupName(flow, groupAt(flow, prefix), prefix) ?? prefix.at(-1) ?? "Flow",
  }));
}

/** The longest start of `path` the flow still has: an undo may take away the group the operator is in. */
export function existingPath(flow: DesignerFlow, path: GroupPath): GroupPath {
  const keys = keysOf(flow.format);
  let group = rootOf(flow);
  const kept: string[] = [];
  for (const id of path) {
    const child = childGroupsOf(group, keys).find((entry) => idOf(entry, keys) === id);
    if (!child) break;
    kept.push(id);
    group = child;
  }
  return kept.length === path.length ? path : kept;
}

const stringsOf = (value: unknown): string[] =>
  asArray(value).flatMap((item) => {
    const text = asString(item);
    return text === undefined ? [] : [text];
  });

function propertiesOf(component: JsonObject, keys: GraphKeys): Record<string, string> {
  const properties = asObject(component[keys.group.properties]) ?? {};
  return Object.fromEntries(
    Object.entries(properties).flatMap(([name, value]) => {
      const text = typeof value === "string" ? value : asString(value);
      return text === undefined ? [] : [[name, text]];
    }),
  );
}

function positionOf(component: JsonObject): Position | undefined {
  const position = asObject(component.position);
  const { x, y } = position ?? {};
  return typeof x === "number" && typeof y === "number" ? { x, y } : undefined;
}

function nodeOf(component: JsonObject, kind: ComponentKind, keys: GraphKeys): FlowNode | undefined {
  const id = idOf(component, keys);
  if (id === undefined) return undefined;
  // The NiFi layout's ports carry their port type (INPUT_PORT) in `type`: no component type.
  const type = KIND_KEYS_TYPED.has(kind)
    ? keys.group.type.map((key) => asString(component[key])).find((value) => value !== undefined)
    : undefined;
  const position = positionOf(component);
  return {
    id,
    kind,
    name: asString(component.name) ?? DEFAULT_NAMES[kind] ?? type ?? id,
    ...(type === undefined ? {} : { type }),
    properties: propertiesOf(component, keys),
    autoTerminated: stringsOf(component[keys.autoTerminated]),
    ...(position === undefined ? {} : { position }),
  };
}

/** The kinds whose components name a type from a manifest. */
const KIND_KEYS_TYPED = new Set<ComponentKind>(["processor", "controllerService"]);

/** A C++ connection names its ends by id, or (older configurations) by name. */
function endOf(connection: JsonObject, end: "source" | "destination", byName: Map<string, string>) {
  const nifi = asObject(connection[end]);
  if (nifi) return asString(nifi.id);
  return asString(connection[`${end} id`]) ?? byName.get(asString(connection[`${end} name`]) ?? "");
}

function relationshipsOf(connection: JsonObject): string[] {
  if (Array.isArray(connection.selectedRelationships)) return stringsOf(connection.selectedRelationships);
  const names = connection["source relationship names"];
  if (Array.isArray(names)) return stringsOf(names);
  return stringsOf([connection["source relationship name"]]);
}

function nodesOf(group: JsonObject, keys: GraphKeys): FlowNode[] {
  return KINDS.flatMap((kind) =>
    asArray(group[KIND_KEYS[kind](keys)]).flatMap((entry) => {
      const component = asObject(entry);
      return (component && nodeOf(component, kind, keys)) ?? [];
    }),
  );
}

/** A port of a group nested in this one: a connection of this group may end there. */
interface NestedPort {
  port: FlowNode;
  group: FlowNode;
}

function nestedPortsOf(group: JsonObject, keys: GraphKeys): NestedPort[] {
  return childGroupsOf(group, keys).flatMap((child) => {
    const node = nodeOf(child, "processGroup", keys);
    if (!node) return [];
    return nodesOf(child, keys)
      .filter((port) => port.kind === "inputPort" || port.kind === "outputPort")
      .map((port) => ({ port, group: node }));
  });
}

/** The group's connections as they are written, each end as the component id it names. */
function connectionsOf(group: JsonObject, keys: GraphKeys, nodes: FlowNode[]) {
  const byName = new Map(nodes.map((node) => [node.name, node.id]));
  return asArray(group[keys.connections]).flatMap((entry, index) => {
    const connection = asObject(entry);
    if (!connection) return [];
    return [
      {
        id: asString(connection[keys.id]) ?? `connection-${index}`,
        source: endOf(connection, "source", byName),
        target: endOf(connection, "destination", byName),
        relationships: relationshipsOf(connection),
      },
    ];
  });
}

/**
 * The components and connections of the group at `path` (the root group by default); a nested group is one
 * node, opened with its own path, and a connection to one of its ports is drawn to it.
 */
export function graphOf(flow: DesignerFlow, path: GroupPath = []): FlowGraph {
  const keys = keysOf(flow.format);
  const group = groupAt(flow, path);
  const nodes = nodesOf(group, keys);
  const ids = new Set(nodes.map((node) => node.id));
  const drawnAt = new Map(nestedPortsOf(group, keys).map(({ port, group }) => [port.id, group.id]));
  const drawn = (end: string | undefined) =>
    end !== undefined && ids.has(end) ? end : drawnAt.get(end ?? "");
  const edges = connectionsOf(group, keys, nodes).flatMap(({ id, source, target, relationships }) => {
    const [from, to] = [drawn(source), drawn(target)];
    return from === undefined || to === undefined ? [] : [{ id, source: from, target: to, relationships }];
  });
  return { nodes, edges };
}

/** The components some connection of the flow starts from, in whichever group it is written. */
export function connectionSourcesOf(flow: DesignerFlow): Set<string> {
  const keys = keysOf(flow.format);
  const sources = new Set<string>();
  for (const { path } of groupsOf(flow)) {
    const group = groupAt(flow, path);
    for (const { source } of connectionsOf(group, keys, nodesOf(group, keys)))
      if (source !== undefined) sources.add(source);
  }
  return sources;
}

/** A component a connection of a group may start or end at, and the node of the group it is drawn as. */
export interface Endpoint {
  id: string;
  kind: ComponentKind;
  name: string;
  /** The node it is drawn as: itself, or the nested group whose port it is. */
  drawnAs: string;
  /** The group it sits in: its `groupId` in the NiFi layout. */
  groupId: string;
}

/**
 * What a connection of the group at `path` may come from (its processors, funnels and input ports, the
 * output ports of the groups nested in it) and go to (its processors, funnels and output ports, the nested
 * groups' input ports).
 */
export function endpointsOf(
  flow: DesignerFlow,
  path: GroupPath = [],
): { sources: Endpoint[]; targets: Endpoint[] } {
  const keys = keysOf(flow.format);
  const group = groupAt(flow, path);
  const groupId = idOf(group, keys) ?? "root";
  const own = nodesOf(group, keys).map((node) => ({
    node,
    endpoint: { ...node, drawnAs: node.id, groupId },
  }));
  const nested = nestedPortsOf(group, keys).map(({ port, group: child }) => ({
    node: port,
    endpoint: { ...port, name: `${child.name} › ${port.name}`, drawnAs: child.id, groupId: child.id },
  }));
  const pick = (entries: typeof own, kinds: ComponentKind[]) =>
    entries.filter(({ node }) => kinds.includes(node.kind)).map(({ endpoint }) => endpoint);
  return {
    sources: [...pick(own, ["processor", "funnel", "inputPort"]), ...pick(nested, ["outputPort"])],
    targets: [...pick(own, ["processor", "funnel", "outputPort"]), ...pick(nested, ["inputPort"])],
  };
}

/** A new component's id: a UUID, as both agents name components. */
export type NewId = () => string;

/** A new component of the kind, as the flow's layout writes it. */
function newEntry(
  flow: DesignerFlow,
  component: { kind: ComponentKind; type?: string; name: string },
  id: string,
): JsonObject {
  const { kind, type, name } = component;
  const keys = keysOf(flow.format);
  if (flow.format === "nifi-json") {
    const placed = { identifier: id, name, position: { x: 0, y: 0 } };
    switch (kind) {
      case "processor":
        return {
          ...placed,
          type,
          properties: {},
          schedulingStrategy: "TIMER_DRIVEN",
          schedulingPeriod: "1 sec",
          autoTerminatedRelationships: [],
        };
      case "controllerService":
        return { identifier: id, name, type, properties: {} };
      case "funnel":
        return { identifier: id, position: { x: 0, y: 0 } };
      case "inputPort":
      case "outputPort": {
        const portType = kind === "inputPort" ? "INPUT_PORT" : "OUTPUT_PORT";
        return {
          ...placed,
          type: portType,
          componentType: portType,
          concurrentlySchedulableTaskCount: 1,
          allowRemoteAccess: false,
        };
      }
      case "processGroup":
        return { ...placed, ...emptyGroup(keys) };
    }
  }
  switch (kind) {
    case "processor":
      return {
        name,
        id,
        class: type,
        "scheduling strategy": "TIMER_DRIVEN",
        "scheduling period": "1 sec",
        "auto-terminated relationships list": [],
        Properties: {},
      };
    case "controllerService":
      return { name, id, type, Properties: {} };
    case "funnel":
      return { id };
    case "inputPort":
    case "outputPort":
      return { name, id };
    case "processGroup":
      return { name, id, ...emptyGroup(keys) };
  }
}

const emptyGroup = (keys: GraphKeys): JsonObject =>
  Object.fromEntries(
    [...KINDS.map((kind) => KIND_KEYS[kind](keys)), keys.connections].map((key) => [key, []]),
  );

/**
 * Adds a component to the group at `path`; a processor's relationships start unconnected and not
 * terminated, for the operator to decide.
 */
export function addComponent(
  flow: DesignerFlow,
  component: { kind: ComponentKind; type?: string; name?: string },
  newId: NewId,
  path: GroupPath = [],
): { flow: DesignerFlow; id: string } {
  const keys = keysOf(flow.format);
  const group = groupAt(flow, path);
  const id = newId();
  const name = component.name ?? component.type?.split(".").pop() ?? DEFAULT_NAMES[component.kind] ?? id;
  const entry = newEntry(flow, { ...component, name }, id);
  const key = KIND_KEYS[component.kind](keys);
  return { flow: withGroupAt(flow, path, { ...group, [key]: [...asArray(group[key]), entry] }), id };
}

/** The path of the group holding component `id`, searched from the root; undefined when no group has it. */
function pathOf(flow: DesignerFlow, id: string): GroupPath | undefined {
  const keys = keysOf(flow.format);
  return groupsOf(flow).find(({ path }) => nodesOf(groupAt(flow, path), keys).some((node) => node.id === id))
    ?.path;
}

/** Applies `change` to component `id`, in whichever group it sits. */
function changeComponent(
  flow: DesignerFlow,
  id: string,
  change: (component: JsonObject, keys: GraphKeys) => JsonObject,
): DesignerFlow {
  const keys = keysOf(flow.format);
  const path = pathOf(flow, id);
  if (path === undefined) throw new FlowModelError(`The flow has no component ${id}`);
  const group = groupAt(flow, path);
  const key = KINDS.map((kind) => KIND_KEYS[kind](keys)).find((candidate) =>
    asArray(group[candidate]).some((entry) => idOf(asObject(entry), keys) === id),
  ) as string;
  const list = asArray(group[key]).map((entry) =>
    idOf(asObject(entry), keys) === id ? change(asObject(entry) ?? {}, keys) : entry,
  );
  return withGroupAt(flow, path, { ...group, [key]: list });
}

/** Sets a property's value, or removes the property (the agent then takes its default) with `undefined`. */
export function setProperty(
  flow: DesignerFlow,
  id: string,
  property: string,
  value: string | undefined,
): DesignerFlow {
  return changeComponent(flow, id, (component, keys) => {
    const { [property]: _old, ...others } = asObject(component[keys.group.properties]) ?? {};
    return {
      ...component,
      [keys.group.properties]: value === undefined ? others : { ...others, [property]: value },
    };
  });
}

/**
 * Places a component (a nested group too) where the operator put it: `position` in either layout. MiNiFi
 * C++ reads only the keys its flow schema names, so it passes over a C++ component's `position`, and its flow
 * serializers start from the document they were given, so a flow the agent writes back keeps it.
 */
export function move(flow: DesignerFlow, id: string, position: Position): DesignerFlow {
  return changeComponent(flow, id, (component) => ({ ...component, position }));
}

/** Renames a component. */
export function rename(flow: DesignerFlow, id: string, name: string): DesignerFlow {
  return changeComponent(flow, id, (component) => ({ ...component, name }));
}

/** Ends a processor's relationship there (`terminated`), or lets it go on again. */
export function setAutoTerminated(
  flow: DesignerFlow,
  id: string,
  relationship: string,
  terminated: boolean,
): DesignerFlow {
  return changeComponent(flow, id, (component, keys) => {
    const others = stringsOf(component[keys.autoTerminated]).filter((name) => name !== relationship);
    return { ...component, [keys.autoTerminated]: terminated ? [...others, relationship] : others };
  });
}

/**
 * Connects `relationships` of a processor (none for a funnel's or port's one output) to another component:
 * a new connection of the group at `path`, between two of its endpoints (endpointsOf).
 */
export function connect(
  flow: DesignerFlow,
  from: { id: string; relationships: string[] },
  to: string,
  newId: NewId,
  path: GroupPath = [],
): { flow: DesignerFlow; id: string } {
  const keys = keysOf(flow.format);
  const { sources, targets } = endpointsOf(flow, path);
  const source = sources.find((endpoint) => endpoint.id === from.id);
  const target = targets.find((endpoint) => endpoint.id === to);
  if (!source || !target || source.id === target.id)
    throw new FlowModelError(
      "A connection goes from a processor, funnel or input port to another processor, funnel or output port of the group, or a port of a group in it",
    );
  const id = newId();
  const name = `${source.name}/${from.relationships.join(",") || "out"}/${target.name}`;
  const endpoint = (end: Endpoint) => ({
    id: end.id,
    type: NIFI_ENDPOINT_TYPES[end.kind],
    groupId: end.groupId,
    name: end.name,
  });
  const connection: JsonObject =
    flow.format === "nifi-json"
      ? {
          identifier: id,
          name,
          source: endpoint(source),
          destination: endpoint(target),
          selectedRelationships: from.relationships,
          backPressureObjectThreshold: 10000,
          backPressureDataSizeThreshold: "1 GB",
          flowFileExpiration: "0 sec",
          prioritizers: [],
          bends: [],
        }
      : {
          name,
          id,
          "source id": source.id,
          "source relationship names": from.relationships,
          "destination id": target.id,
        };
  const group = groupAt(flow, path);
  return {
    flow: withGroupAt(flow, path, {
      ...group,
      [keys.connections]: [...asArray(group[keys.connections]), connection],
    }),
    id,
  };
}

/** The group without the connections that `drop` picks. */
function withoutConnections(
  group: JsonObject,
  keys: GraphKeys,
  drop: (connection: { id: string; source?: string; target?: string }) => boolean,
): JsonObject {
  if (group[keys.connections] === undefined) return group;
  const dropped = new Set(
    connectionsOf(group, keys, nodesOf(group, keys))
      .filter(drop)
      .map((connection) => connection.id),
  );
  const connections = asArray(group[keys.connections]).filter(
    (entry, index) => !dropped.has(asString(asObject(entry)?.[keys.id]) ?? `connection-${index}`),
  );
  return { ...group, [keys.connections]: connections };
}

/**
 * Removes a component of the group at `path` and every connection to or from it (to a nested group's ports,
 * for a nested group; from the group above, for a port), or one connection of the group.
 */
export function remove(flow: DesignerFlow, id: string, path: GroupPath = []): DesignerFlow {
  const keys = keysOf(flow.format);
  const graph = graphOf(flow, path);
  const gone = new Set([
    id,
    ...graph.edges.filter((edge) => edge.source === id || edge.target === id).map((edge) => edge.id),
  ]);
  const group = withoutConnections(groupAt(flow, path), keys, (connection) => gone.has(connection.id));
  const next: JsonObject = { ...group };
  for (const kind of KINDS) {
    const key = KIND_KEYS[kind](keys);
    if (group[key] !== undefined)
      next[key] = asArray(group[key]).filter((entry) => !gone.has(idOf(asObject(entry), keys) ?? ""));
  }
  const removed = withGroupAt(flow, path, next);
  const removedPort = graph.nodes.some(
    (node) => node.id === id && (node.kind === "inputPort" || node.kind === "outputPort"),
  );
  if (!removedPort || path.length === 0) return removed;
  const parentPath = path.slice(0, -1);
  const parent = withoutConnections(groupAt(removed, parentPath), keys, (connection) =>
    [connection.source, connection.target].includes(id),
  );
  return withGroupAt(removed, parentPath, parent);
}

/**
 * Declares a parameter in the parameter context of the group at `path` (the root group by default), so that
 * a property of that group's components may name it (`#{name}`): Beacon refuses a flow naming one its group's
 * context does not declare. The context is the one the group names, else a new one named as the group. A
 * parameter declared already stays as it is.
 */
export function declareParameter(
  flow: DesignerFlow,
  name: string,
  sensitive: boolean,
  newId: NewId,
  path: GroupPath = [],
): DesignerFlow {
  const { group: layout } = keysOf(flow.format);
  const nifi = flow.format === "nifi-json";
  const group = groupAt(flow, path);
  const contextName =
    asString(group[layout.parameterContextName]) ?? groupName(flow, group, path) ?? "parameters";
  const contexts = asArray(flow.document[layout.parameterContexts]);
  const index = contexts.findIndex((entry) => asString(asObject(entry)?.name) === contextName);
  const context = asObject(contexts[index]) ?? {
    [nifi ? "identifier" : "id"]: newId(),
    name: contextName,
    [layout.parameters]: [],
    [layout.inheritedParameterContexts]: [],
  };
  const parameters = asArray(context[layout.parameters]);
  const declared = parameters.some((entry) => asString(asObject(entry)?.name) === name);
  const nextContext = declared
    ? context
    : {
        ...context,
        [layout.parameters]: [...parameters, { name, sensitive, ...(nifi ? { provided: false } : {}) }],
      };
  const nextContexts = index < 0 ? [...contexts, nextContext] : contexts.with(index, nextContext);
  const document = { ...flow.document, [layout.parameterContexts]: nextContexts };
  const named = { ...flow, document };
  return withGroupAt(named, path, { ...groupAt(named, path), [layout.parameterContextName]: contextName });
}

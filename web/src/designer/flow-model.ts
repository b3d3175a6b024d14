/**
 * The flow designer's model: a flow document as the class's agents run it, read as a graph of components
 * and connections and edited in place. Every edit returns a new document that keeps all it does not touch
 * (scheduling, bundles, nested groups, parameter contexts), so a flow opened and saved unchanged says what it
 * said. Pure: no browser, no requests.
 */
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import {
  type FlowFormat,
  type GroupLayout,
  minifiLayout,
  nifiLayout,
} from "../../../functions/core/flows/layout.js";
import { asArray, asObject, asString, type JsonObject } from "../../../functions/core/json.js";

export type { FlowFormat };

export type ComponentKind = "processor" | "controllerService" | "funnel";

/** A flow document of one of the layouts agents run, parsed. */
export interface DesignerFlow {
  format: FlowFormat;
  document: JsonObject;
}

/** Where a component is drawn on the canvas, its top left corner. */
export interface Position {
  x: number;
  y: number;
}

/** A component of the flow's root group, as the designer draws it. */
export interface FlowNode {
  id: string;
  kind: ComponentKind | "processGroup";
  name: string;
  /** The component's type (`org.apache.nifi.minifi.processors.GenerateFlowFile`); none for funnels and groups. */
  type?: string;
  properties: Record<string, string>;
  /** The processor's relationships that end there rather than go on. */
  autoTerminated: string[];
  /** Where the flow places it, in a format that carries positions; none means the designer lays it out. */
  position?: Position;
}

/** A connection of the root group: from one component, for the relationships it carries, to another. */
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
  connections: string;
  autoTerminated: string;
}

const nifiKeys: GraphKeys = {
  group: nifiLayout,
  id: "identifier",
  funnels: "funnels",
  connections: "connections",
  autoTerminated: "autoTerminatedRelationships",
};

const minifiKeys: GraphKeys = {
  group: minifiLayout,
  id: "id",
  funnels: "Funnels",
  connections: "Connections",
  autoTerminated: "auto-terminated relationships list",
};

const keysOf = (format: FlowFormat): GraphKeys => (format === "nifi-json" ? nifiKeys : minifiKeys);

const KIND_KEYS: Record<ComponentKind, (keys: GraphKeys) => string> = {
  processor: (keys) => keys.group.processors,
  controllerService: (keys) => keys.group.services,
  funnel: (keys) => keys.funnels,
};

/** The NiFi layout's connection endpoint types. */
const NIFI_ENDPOINT_TYPES: Record<string, string> = { processor: "PROCESSOR", funnel: "FUNNEL" };

export class FlowModelError extends Error {}

/** Reads a flow's text: JSON or YAML, in the NiFi layout (`rootGroup`) or the C++ one (`Flow Controller`). */
export function parseDesignerFlow(text: string): DesignerFlow {
  const json = text.trimStart().startsWith("{");
  let value: unknown;
  try {
    value = json ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new FlowModelError(`The flow is not valid ${json ? "JSON" : "YAML"}: ${(error as Error).message}`);
  }
  const document = asObject(value);
  if (document && asObject(document.rootGroup) && json) return { format: "nifi-json", document };
  if (document && asObject(document["Flow Controller"]))
    return { format: json ? "minifi-json" : "minifi-yaml", document };
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

/** The flow's text as the agents take it, with its content type. */
export function serialiseFlow(flow: DesignerFlow): { text: string; contentType: string } {
  if (flow.format === "minifi-yaml")
    return { text: stringifyYaml(flow.document), contentType: "application/yaml" };
  return { text: `${JSON.stringify(flow.document, null, 2)}\n`, contentType: "application/json" };
}

const rootOf = (flow: DesignerFlow): JsonObject =>
  flow.format === "nifi-json" ? (asObject(flow.document.rootGroup) ?? {}) : flow.document;

/** The flow with its root group replaced. */
const withRoot = (flow: DesignerFlow, root: JsonObject): DesignerFlow =>
  flow.format === "nifi-json"
    ? { ...flow, document: { ...flow.document, rootGroup: root } }
    : { ...flow, document: root };

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

/** Only NiFi's layout (MiNiFi Java's flow.json) places components; MiNiFi C++'s flow schema has no positions. */
export const carriesPositions = (format: FlowFormat): boolean => format === "nifi-json";

function positionOf(component: JsonObject): Position | undefined {
  const position = asObject(component.position);
  const { x, y } = position ?? {};
  return typeof x === "number" && typeof y === "number" ? { x, y } : undefined;
}

function nodeOf(component: JsonObject, kind: FlowNode["kind"], keys: GraphKeys): FlowNode | undefined {
  const id = asString(component[keys.id]) ?? asString(component.name);
  if (id === undefined) return undefined;
  const type = keys.group.type.map((key) => asString(component[key])).find((value) => value !== undefined);
  const position = positionOf(component);
  return {
    id,
    kind,
    name: asString(component.name) ?? (kind === "funnel" ? "Funnel" : (type ?? id)),
    ...(type === undefined ? {} : { type }),
    properties: propertiesOf(component, keys),
    autoTerminated: stringsOf(component[keys.autoTerminated]),
    ...(position === undefined ? {} : { position }),
  };
}

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

/** The root group's components and connections; a nested group is one node, opened elsewhere. */
export function graphOf(flow: DesignerFlow): FlowGraph {
  const keys = keysOf(flow.format);
  const root = rootOf(flow);
  const nodes: FlowNode[] = [];
  const collect = (key: string, kind: FlowNode["kind"]) => {
    for (const entry of asArray(root[key])) {
      const component = asObject(entry);
      const node = component && nodeOf(component, kind, keys);
      if (node) nodes.push(node);
    }
  };
  collect(keys.group.processors, "processor");
  collect(keys.group.services, "controllerService");
  collect(keys.funnels, "funnel");
  collect(keys.group.groups, "processGroup");
  const byName = new Map(nodes.map((node) => [node.name, node.id]));
  const ids = new Set(nodes.map((node) => node.id));
  const edges = asArray(root[keys.connections]).flatMap((entry, index) => {
    const connection = asObject(entry);
    if (!connection) return [];
    const source = endOf(connection, "source", byName);
    const target = endOf(connection, "destination", byName);
    // A connection to a port inside a nested group ends at no node of this one.
    if (source === undefined || target === undefined || !ids.has(source) || !ids.has(target)) return [];
    const id = asString(connection[keys.id]) ?? `connection-${index}`;
    return [{ id, source, target, relationships: relationshipsOf(connection) }];
  });
  return { nodes, edges };
}

/** A new component's id: a UUID, as both agents name components. */
export type NewId = () => string;

/**
 * Adds a processor, controller service or funnel to the root group; the processor's relationships start
 * unconnected and not terminated, for the operator to decide.
 */
export function addComponent(
  flow: DesignerFlow,
  component: { kind: ComponentKind; type?: string; name?: string },
  newId: NewId,
): { flow: DesignerFlow; id: string } {
  const keys = keysOf(flow.format);
  const root = rootOf(flow);
  const id = newId();
  const name = component.name ?? (component.type?.split(".").pop() || "Funnel");
  const nifi = flow.format === "nifi-json";
  const typed =
    component.type === undefined
      ? {}
      : { [nifi ? "type" : component.kind === "processor" ? "class" : "type"]: component.type };
  const entry: JsonObject =
    component.kind === "funnel"
      ? { [keys.id]: id, ...(nifi ? { position: { x: 0, y: 0 } } : {}) }
      : component.kind === "processor"
        ? nifi
          ? {
              identifier: id,
              name,
              ...typed,
              properties: {},
              schedulingStrategy: "TIMER_DRIVEN",
              schedulingPeriod: "1 sec",
              autoTerminatedRelationships: [],
              position: { x: 0, y: 0 },
            }
          : {
              name,
              id,
              ...typed,
              "scheduling strategy": "TIMER_DRIVEN",
              "scheduling period": "1 sec",
              "auto-terminated relationships list": [],
              Properties: {},
            }
        : nifi
          ? { identifier: id, name, ...typed, properties: {} }
          : { name, id, ...typed, Properties: {} };
  const key = KIND_KEYS[component.kind](keys);
  return { flow: withRoot(flow, { ...root, [key]: [...asArray(root[key]), entry] }), id };
}

/** Applies `change` to the root group's component `id`, wherever it sits; the flow unchanged without one. */
function changeComponent(
  flow: DesignerFlow,
  id: string,
  change: (component: JsonObject, keys: GraphKeys) => JsonObject,
): DesignerFlow {
  const keys = keysOf(flow.format);
  const root = rootOf(flow);
  let changed = root;
  const kinds = Object.keys(KIND_KEYS) as ComponentKind[];
  for (const key of [...kinds.map((kind) => KIND_KEYS[kind](keys)), keys.group.groups]) {
    const list = asArray(root[key]);
    const index = list.findIndex((entry) => asObject(entry)?.[keys.id] === id);
    if (index < 0) continue;
    const next = [...list];
    next[index] = change(asObject(list[index]) ?? {}, keys);
    changed = { ...root, [key]: next };
    break;
  }
  if (changed === root) throw new FlowModelError(`The flow has no component ${id}`);
  return withRoot(flow, changed);
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

/** Places a component (a nested group too) where the operator put it, in a format that carries positions. */
export function move(flow: DesignerFlow, id: string, position: Position): DesignerFlow {
  if (!carriesPositions(flow.format))
    throw new FlowModelError(`A ${flow.format} flow does not say where its components are drawn`);
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
 * Connects `relationships` of a processor (none for a funnel's one output) to another processor or funnel:
 * a new connection of the root group.
 */
export function connect(
  flow: DesignerFlow,
  from: { id: string; relationships: string[] },
  to: string,
  newId: NewId,
): { flow: DesignerFlow; id: string } {
  const keys = keysOf(flow.format);
  const graph = graphOf(flow);
  const source = graph.nodes.find((node) => node.id === from.id);
  const target = graph.nodes.find((node) => node.id === to);
  const ends = [source, target];
  if (!source || !target || ends.some((node) => node?.kind !== "processor" && node?.kind !== "funnel"))
    throw new FlowModelError("A connection goes from a processor or funnel to a processor or funnel");
  const id = newId();
  const name = `${source.name}/${from.relationships.join(",") || "out"}/${target.name}`;
  const groupId = asString(rootOf(flow).identifier) ?? "root";
  const endpoint = (node: FlowNode) => ({
    id: node.id,
    type: NIFI_ENDPOINT_TYPES[node.kind],
    groupId,
    name: node.name,
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
  const root = rootOf(flow);
  return {
    flow: withRoot(flow, { ...root, [keys.connections]: [...asArray(root[keys.connections]), connection] }),
    id,
  };
}

/** Removes a component and every connection to or from it, or one connection. */
export function remove(flow: DesignerFlow, id: string): DesignerFlow {
  const keys = keysOf(flow.format);
  const graph = graphOf(flow);
  const gone = new Set([
    id,
    ...graph.edges.filter((edge) => edge.source === id || edge.target === id).map((edge) => edge.id),
  ]);
  const root = rootOf(flow);
  const keep = (key: string) =>
    asArray(root[key]).filter((entry) => !gone.has(asString(asObject(entry)?.[keys.id]) ?? ""));
  const connections = asArray(root[keys.connections]).filter((entry, index) => {
    const connectionId = asString(asObject(entry)?.[keys.id]) ?? `connection-${index}`;
    return !gone.has(connectionId);
  });
  const next: JsonObject = { ...root, [keys.connections]: connections };
  for (const kind of Object.keys(KIND_KEYS) as ComponentKind[]) {
    const key = KIND_KEYS[kind](keys);
    if (root[key] !== undefined) next[key] = keep(key);
  }
  return withRoot(flow, next);
}

/**
 * Declares a parameter in the root group's parameter context, so that a property may name it (`#{name}`):
 * Beacon refuses a flow naming one its group's context does not declare. The context is the one the root group
 * names, else a new one named as the group. A parameter declared already stays as it is.
 */
export function declareParameter(
  flow: DesignerFlow,
  name: string,
  sensitive: boolean,
  newId: NewId,
): DesignerFlow {
  const { group: layout } = keysOf(flow.format);
  const nifi = flow.format === "nifi-json";
  const root = rootOf(flow);
  const groupName = nifi ? asString(root.name) : asString(asObject(root["Flow Controller"])?.name);
  const contextName = asString(root[layout.parameterContextName]) ?? groupName ?? "parameters";
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
  return withRoot(named, { ...rootOf(named), [layout.parameterContextName]: contextName });
}

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readFlowDocument } from "../../functions/core/flows/document.js";
import {
  cppYamlFlow,
  cppYamlParameterFlow,
  javaParameterFlow,
} from "../../scripts/test-support/flow-fixtures.js";
import { paletteOf } from "../src/designer/components.js";
import {
  addComponent,
  connect,
  type DesignerFlow,
  declareParameter,
  emptyFlow,
  endpointsOf,
  existingPath,
  type FlowFormat,
  graphOf,
  groupsOf,
  parseDesignerFlow,
  remove,
  rename,
  serialiseFlow,
  setAutoTerminated,
  setProperty,
  trailOf,
} from "../src/designer/flow-model.js";
import { flowProblemsOf, problemCountsOf, problemsOf } from "../src/designer/problems.js";

const cppManifest = (
  JSON.parse(readFileSync("schemas/c2/examples/cpp/heartbeat-full.json", "utf8")) as {
    agentInfo: { agentManifest: unknown };
  }
).agentInfo.agentManifest;

/** Ids as a test can name them: id-1, id-2, … */
const counter = () => {
  let next = 0;
  return () => `id-${++next}`;
};

/** How Beacon reads a flow's text when it is published: its format and component types. */
const asBeaconReads = async (text: string) => {
  const read = await readFlowDocument(new TextEncoder().encode(text), 5 * 1024 * 1024);
  return { format: read.format, processorTypes: read.processorTypes, services: read.controllerServiceTypes };
};
const asBeaconReadsIt = (flow: DesignerFlow) => asBeaconReads(serialiseFlow(flow).text);

const fixtures: [string, string][] = [
  ["the C++ YAML flow", cppYamlFlow],
  ["the C++ YAML flow with parameters", cppYamlParameterFlow],
  ["the Java flow.json with parameters", JSON.stringify(javaParameterFlow, null, 2)],
];

describe("the designer's flow model", () => {
  it.each(fixtures)("reads %s as a graph and writes it back saying the same", async (_name, text) => {
    const flow = parseDesignerFlow(text);
    const written = serialiseFlow(flow).text;
    const again = parseDesignerFlow(written);
    expect(again.format).toBe(flow.format);
    expect(again.document).toEqual(flow.document);
    expect(graphOf(again)).toEqual(graphOf(flow));
    expect(await asBeaconReads(written)).toEqual(await asBeaconReads(text));
  });

  it("reads the C++ flow's processors, services and nested group as nodes", () => {
    const graph = graphOf(parseDesignerFlow(cppYamlFlow));
    expect(graph.nodes.map(({ kind, name, type }) => ({ kind, name, type }))).toEqual([
      { kind: "processor", name: "generate", type: "GenerateFlowFile" },
      { kind: "processor", name: "log", type: "LogAttribute" },
      { kind: "controllerService", name: "ssl", type: "SSLContextService" },
      { kind: "processGroup", name: "inner", type: undefined },
    ]);
    expect(graph.edges).toEqual([]);
  });

  it("reads a Java flow's properties", () => {
    const graph = graphOf(parseDesignerFlow(JSON.stringify(javaParameterFlow)));
    expect(graph.nodes.find((node) => node.id === "publish")?.properties["Kafka Brokers"]).toBe(
      "#{kafka.brokers}",
    );
  });

  it.each<FlowFormat>(["minifi-yaml", "minifi-json", "nifi-json"])(
    "builds GenerateFlowFile → LogAttribute with a state store in %s, which Beacon reads as that flow",
    async (format) => {
      const newId = counter();
      let flow = emptyFlow(format, "pumps");
      // The counter's ids, in the order added.
      const [generate, log, store] = ["id-1", "id-2", "id-3"];
      flow = addComponent(
        flow,
        { kind: "processor", type: "org.apache.nifi.minifi.processors.GenerateFlowFile" },
        newId,
      ).flow;
      flow = addComponent(
        flow,
        { kind: "processor", type: "org.apache.nifi.minifi.processors.LogAttribute" },
        newId,
      ).flow;
      flow = addComponent(
        flow,
        { kind: "controllerService", type: "org.apache.nifi.minifi.controllers.PersistentMapStateStorage" },
        newId,
      ).flow;
      ({ flow } = connect(flow, { id: generate, relationships: ["success"] }, log, newId));
      flow = setProperty(flow, generate, "Batch Size", "5");
      flow = setProperty(flow, store, "File", "/var/lib/minifi/state");
      flow = setAutoTerminated(flow, log, "success", true);

      const reread = parseDesignerFlow(serialiseFlow(flow).text);
      const graph = graphOf(reread);
      expect(graph.nodes.map(({ id, name, kind }) => ({ id, name, kind }))).toEqual([
        { id: "id-1", name: "GenerateFlowFile", kind: "processor" },
        { id: "id-2", name: "LogAttribute", kind: "processor" },
        { id: "id-3", name: "PersistentMapStateStorage", kind: "controllerService" },
      ]);
      expect(graph.edges).toEqual([
        { id: "id-4", source: "id-1", target: "id-2", relationships: ["success"] },
      ]);
      expect(graph.nodes[0]?.properties).toEqual({ "Batch Size": "5" });
      expect(graph.nodes[1]?.autoTerminated).toEqual(["success"]);
      expect(await asBeaconReadsIt(reread)).toEqual({
        format,
        processorTypes: [
          "org.apache.nifi.minifi.processors.GenerateFlowFile",
          "org.apache.nifi.minifi.processors.LogAttribute",
        ],
        services: ["org.apache.nifi.minifi.controllers.PersistentMapStateStorage"],
      });
      // A property removed goes back to its default; a component removed takes its connections along.
      const cleared = setProperty(flow, generate, "Batch Size", undefined);
      expect(graphOf(cleared).nodes[0]?.properties).toEqual({});
      const without = graphOf(remove(flow, log));
      expect(without.nodes.map((node) => node.id)).toEqual(["id-1", "id-3"]);
      expect(without.edges).toEqual([]);
      expect(graphOf(remove(flow, "id-4")).edges).toEqual([]);
    },
  );

  it.each<FlowFormat>(["minifi-yaml", "nifi-json"])(
    "declares the parameter a sensitive property names, which Beacon otherwise refuses, in %s",
    async (format) => {
      const newId = counter();
      const added = addComponent(
        emptyFlow(format, "pumps"),
        { kind: "processor", type: "InvokeHTTP" },
        newId,
      );
      const named = setProperty(added.flow, added.id, "Basic Authentication Password", "#{http.password}");
      await expect(asBeaconReadsIt(named)).rejects.toThrow(
        /no parameter context of their process group declares/,
      );
      const declared = declareParameter(named, "http.password", true, newId);
      expect(declareParameter(declared, "http.password", true, newId)).toEqual(declared);
      const read = await readFlowDocument(
        new TextEncoder().encode(serialiseFlow(declared).text),
        5 * 1024 * 1024,
      );
      expect(read.parameters).toEqual([{ name: "http.password", sensitive: true }]);
    },
  );

  it("adds a funnel and connects a processor through it", () => {
    const newId = counter();
    let flow = emptyFlow("nifi-json", "pumps");
    const [generate, funnel] = ["id-1", "id-2"];
    flow = addComponent(flow, { kind: "processor", type: "GenerateFlowFile" }, newId).flow;
    flow = addComponent(flow, { kind: "funnel" }, newId).flow;
    ({ flow } = connect(flow, { id: generate, relationships: ["success"] }, funnel, newId));
    const connection = (flow.document.rootGroup as { connections: { destination: unknown }[] })
      .connections[0];
    expect(connection?.destination).toEqual({ id: funnel, type: "FUNNEL", groupId: "root", name: "Funnel" });
    expect(() => connect(flow, { id: "nothing", relationships: [] }, funnel, newId)).toThrow(
      /from a processor/,
    );
  });
});

/**
 * A flow with a nested group `ingest` (ids as the counter gives them): GenerateFlowFile (id-1) in the root,
 * connected to the group's input port (id-3), which feeds its PutFile (id-4), whose success goes to the
 * group's output port (id-5), connected back in the root to LogAttribute (id-8).
 */
function nestedFlow(format: FlowFormat) {
  const newId = counter();
  let flow = emptyFlow(format, "pumps");
  flow = addComponent(
    flow,
    { kind: "processor", type: "org.apache.nifi.minifi.processors.GenerateFlowFile" },
    newId,
  ).flow;
  const group = addComponent(flow, { kind: "processGroup" }, newId);
  flow = rename(group.flow, group.id, "ingest");
  const inside = [group.id];
  flow = addComponent(flow, { kind: "inputPort" }, newId, inside).flow;
  flow = addComponent(
    flow,
    { kind: "processor", type: "org.apache.nifi.minifi.processors.PutFile" },
    newId,
    inside,
  ).flow;
  flow = addComponent(flow, { kind: "outputPort" }, newId, inside).flow;
  ({ flow } = connect(flow, { id: "id-3", relationships: [] }, "id-4", newId, inside));
  ({ flow } = connect(flow, { id: "id-4", relationships: ["success"] }, "id-5", newId, inside));
  flow = addComponent(
    flow,
    { kind: "processor", type: "org.apache.nifi.minifi.processors.LogAttribute" },
    newId,
  ).flow;
  ({ flow } = connect(flow, { id: "id-1", relationships: ["success"] }, "id-3", newId));
  ({ flow } = connect(flow, { id: "id-5", relationships: [] }, "id-8", newId));
  flow = setAutoTerminated(flow, "id-4", "failure", true);
  flow = setAutoTerminated(flow, "id-8", "success", true);
  return { flow, newId };
}

describe("an uploaded YAML flow's comments", () => {
  const commented = `# Pumps at the north site
MiNiFi Config Version: 3
Flow Controller:
  name: pumps # as the class
Processors:
  # Makes the test data
  - name: generate
    id: 5128e3c8-015a-1000-79ca-83af40ec1991
    class: GenerateFlowFile
    Properties:
      Batch Size: 1 # one at a time
  - name: log
    id: 5128e3c8-015a-1000-79ca-83af40ec1992
    class: LogAttribute
Connections: []
`;

  it("writes an unchanged flow back as it was read", () => {
    expect(serialiseFlow(parseDesignerFlow(commented)).text).toBe(commented);
  });

  it("keeps the comments the edits do not reach, and writes what the edits say", () => {
    const newId = counter();
    let flow = parseDesignerFlow(commented);
    flow = setProperty(flow, "5128e3c8-015a-1000-79ca-83af40ec1992", "Log Level", "info");
    flow = addComponent(flow, { kind: "funnel" }, newId).flow;
    ({ flow } = connect(
      flow,
      { id: "5128e3c8-015a-1000-79ca-83af40ec1991", relationships: ["success"] },
      "id-1",
      newId,
    ));
    flow = remove(flow, "5128e3c8-015a-1000-79ca-83af40ec1992");
    const { text } = serialiseFlow(flow);
    for (const comment of [
      "# Pumps at the north site",
      "# as the class",
      "# Makes the test data",
      "# one at a time",
    ])
      expect(text).toContain(comment);
    expect(parseDesignerFlow(text).document).toEqual(flow.document);
    expect(text).not.toContain("LogAttribute");
  });
});

describe("the designer's nested process groups", () => {
  it("opens the C++ flow's nested group, named by its name where it has no id", () => {
    const flow = parseDesignerFlow(cppYamlFlow);
    expect(groupsOf(flow)).toEqual([
      { path: [], trail: [] },
      { path: ["inner"], trail: ["inner"] },
    ]);
    expect(graphOf(flow, ["inner"]).nodes.map(({ kind, name }) => ({ kind, name }))).toEqual([
      { kind: "processor", name: "put" },
    ]);
    expect(trailOf(flow, ["inner"]).map((step) => step.name)).toEqual(["pumps", "inner"]);
    expect(() => graphOf(flow, ["nowhere"])).toThrow(/no process group nowhere/);
    expect(existingPath(flow, ["inner", "gone"])).toEqual(["inner"]);
  });

  it.each<FlowFormat>(["minifi-yaml", "minifi-json", "nifi-json"])(
    "edits a nested group's components, ports and connections in %s, saved in the group and read back",
    async (format) => {
      const { flow } = nestedFlow(format);
      const reread = parseDesignerFlow(serialiseFlow(flow).text);
      const inner = graphOf(reread, ["id-2"]);
      expect(inner.nodes.map(({ id, kind, name }) => ({ id, kind, name }))).toEqual([
        { id: "id-4", kind: "processor", name: "PutFile" },
        { id: "id-3", kind: "inputPort", name: "Input port" },
        { id: "id-5", kind: "outputPort", name: "Output port" },
      ]);
      expect(inner.edges).toEqual([
        { id: "id-6", source: "id-3", target: "id-4", relationships: [] },
        { id: "id-7", source: "id-4", target: "id-5", relationships: ["success"] },
      ]);
      // In the root the connections to and from the group's ports are drawn to and from the group.
      const root = graphOf(reread);
      expect(root.nodes.map(({ id, kind, name }) => ({ id, kind, name }))).toEqual([
        { id: "id-1", kind: "processor", name: "GenerateFlowFile" },
        { id: "id-8", kind: "processor", name: "LogAttribute" },
        { id: "id-2", kind: "processGroup", name: "ingest" },
      ]);
      expect(root.edges).toEqual([
        { id: "id-9", source: "id-1", target: "id-2", relationships: ["success"] },
        { id: "id-10", source: "id-2", target: "id-8", relationships: [] },
      ]);
      expect((await asBeaconReadsIt(reread)).processorTypes).toEqual([
        "org.apache.nifi.minifi.processors.GenerateFlowFile",
        "org.apache.nifi.minifi.processors.LogAttribute",
        "org.apache.nifi.minifi.processors.PutFile",
      ]);
      // Removing a port takes the group above's connection to it along; removing the group, its connections.
      expect(graphOf(remove(flow, "id-5", ["id-2"])).edges.map((edge) => edge.id)).toEqual(["id-9"]);
      expect(graphOf(remove(flow, "id-5", ["id-2"]), ["id-2"]).edges.map((edge) => edge.id)).toEqual([
        "id-6",
      ]);
      const withoutGroup = remove(flow, "id-2");
      expect(graphOf(withoutGroup).edges).toEqual([]);
      expect(groupsOf(withoutGroup)).toEqual([{ path: [], trail: [] }]);
    },
  );

  it("writes a connection to a nested group's port with the port's type and group in flow.json", () => {
    const { flow } = nestedFlow("nifi-json");
    const root = flow.document.rootGroup as { connections: { source: unknown; destination: unknown }[] };
    expect(root.connections[0]?.destination).toEqual({
      id: "id-3",
      type: "INPUT_PORT",
      groupId: "id-2",
      name: "ingest › Input port",
    });
    expect(root.connections[1]?.source).toMatchObject({ id: "id-5", type: "OUTPUT_PORT", groupId: "id-2" });
    const { sources, targets } = endpointsOf(flow);
    expect(sources.map((endpoint) => [endpoint.id, endpoint.drawnAs])).toEqual([
      ["id-1", "id-1"],
      ["id-8", "id-8"],
      ["id-5", "id-2"],
    ]);
    expect(targets.map((endpoint) => endpoint.id)).toEqual(["id-1", "id-8", "id-3"]);
    // A group's own input port is no target inside it, nor its output port a source.
    expect(() => connect(flow, { id: "id-5", relationships: [] }, "id-3", counter(), ["id-2"])).toThrow(
      /A connection goes from/,
    );
  });

  it("checks every group as the root, naming a nested group's problems by its trail", () => {
    const palette = paletteOf([{ manifest: cppManifest, agentCount: 2 }]);
    const { flow } = nestedFlow("minifi-yaml");
    expect(flowProblemsOf(flow, palette, 2)).toEqual([]);
    const loose = setAutoTerminated(flow, "id-4", "failure", false);
    expect(flowProblemsOf(loose, palette, 2)).toEqual([
      {
        id: "id-4",
        message: "ingest › PutFile: relationship failure is neither connected nor terminated",
        within: ["id-2"],
      },
    ]);
  });

  it("finds a nested group's port that goes nowhere, and counts each inner problem on the group's node too", () => {
    const palette = paletteOf([{ manifest: cppManifest, agentCount: 2 }]);
    const { flow } = nestedFlow("minifi-yaml");
    // The output port's connection to LogAttribute (id-10) removed, then the input port's to PutFile (id-6).
    const noOutlet = remove(flow, "id-10");
    expect(flowProblemsOf(noOutlet, palette, 2).map((problem) => problem.message)).toEqual([
      "ingest › Output port: this output port is connected to nothing outside its group",
    ]);
    const neither = remove(noOutlet, "id-6", ["id-2"]);
    const problems = flowProblemsOf(neither, palette, 2);
    expect(problems.map((problem) => problem.message)).toEqual([
      "ingest › Input port: this input port is connected to nothing inside its group",
      "ingest › Output port: this output port is connected to nothing outside its group",
    ]);
    expect(Object.fromEntries(problemCountsOf(problems))).toEqual({ "id-2": 2, "id-3": 1, "id-5": 1 });
  });

  it.each<FlowFormat>(["minifi-yaml", "nifi-json"])(
    "declares a nested group's parameter in that group's context in %s",
    async (format) => {
      const { flow, newId } = nestedFlow(format);
      const named = setProperty(flow, "id-4", "Directory", "#{out.dir}");
      await expect(asBeaconReadsIt(named)).rejects.toThrow(
        /no parameter context of their process group declares/,
      );
      const declared = declareParameter(named, "out.dir", false, newId, ["id-2"]);
      const read = await readFlowDocument(
        new TextEncoder().encode(serialiseFlow(declared).text),
        5 * 1024 * 1024,
      );
      expect(read.parameters).toEqual([{ name: "out.dir", sensitive: false }]);
    },
  );
});

describe("the designer's palette and live problems", () => {
  const palette = paletteOf([{ manifest: cppManifest, agentCount: 2 }]);

  it("lists the C++ binary's processors and services with their descriptors and agents", () => {
    const generate = palette.find((entry) => entry.type.endsWith(".GenerateFlowFile"));
    expect(generate).toMatchObject({ kind: "processor", agentCount: 2, relationships: ["success"] });
    expect(generate?.properties.find((property) => property.name === "Data Format")).toEqual({
      name: "Data Format",
      displayName: "Data Format",
      description: "Specifies whether the data should be Text or Binary",
      required: false,
      sensitive: false,
      defaultValue: "Binary",
      allowableValues: [
        { value: "Text", displayName: "Text" },
        { value: "Binary", displayName: "Binary" },
      ],
      expressionLanguageScope: "NONE",
    });
    expect(palette.some((entry) => entry.kind === "controllerService")).toBe(true);
    // Counted once per binary: a second binary listing it adds its agents.
    const both = paletteOf([
      { manifest: cppManifest, agentCount: 2 },
      { manifest: cppManifest, agentCount: 3 },
    ]);
    expect(both.find((entry) => entry.type === generate?.type)?.agentCount).toBe(5);
  });

  it("names a missing required property, an unknown type, a value not allowed and a loose relationship", () => {
    const newId = counter();
    let flow = emptyFlow("minifi-yaml", "pumps");
    const [generate, log, store] = ["id-1", "id-2", "id-3"];
    flow = addComponent(flow, { kind: "processor", type: "GenerateFlowFile" }, newId).flow;
    flow = addComponent(
      flow,
      { kind: "processor", type: "org.apache.nifi.minifi.processors.LogAttribute" },
      newId,
    ).flow;
    flow = addComponent(
      flow,
      { kind: "controllerService", type: "org.apache.nifi.minifi.controllers.PersistentMapStateStorage" },
      newId,
    ).flow;
    ({ flow } = addComponent(flow, { kind: "processor", type: "com.example.Nothing" }, newId));
    flow = setProperty(flow, generate, "Data Format", "Morse");
    expect(problemsOf(graphOf(flow), palette, 2).map((problem) => problem.message)).toEqual([
      "GenerateFlowFile: Data Format must be one of Text, Binary",
      "GenerateFlowFile: relationship success is neither connected nor terminated",
      "LogAttribute: relationship success is neither connected nor terminated",
      "Nothing: no binary of the class lists com.example.Nothing",
      "PersistentMapStateStorage: File is required",
    ]);
    flow = remove(flow, "id-4");
    flow = setProperty(flow, generate, "Data Format", "#{format}");
    flow = setProperty(flow, store, "File", "/var/state");
    ({ flow } = connect(flow, { id: generate, relationships: ["success"] }, log, newId));
    flow = setAutoTerminated(flow, log, "success", true);
    expect(problemsOf(graphOf(flow), palette, 2)).toEqual([]);
    expect(problemsOf(graphOf(flow), palette, 3).map((problem) => problem.message)).toContain(
      "GenerateFlowFile: only 2 of the class's 3 agents can run GenerateFlowFile",
    );
  });
});

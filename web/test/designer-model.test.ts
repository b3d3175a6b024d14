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
  type FlowFormat,
  graphOf,
  parseDesignerFlow,
  remove,
  serialiseFlow,
  setAutoTerminated,
  setProperty,
} from "../src/designer/flow-model.js";
import { problemsOf } from "../src/designer/problems.js";

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
const asBeaconReads = (text: string) => {
  const read = readFlowDocument(new TextEncoder().encode(text), 5 * 1024 * 1024);
  return { format: read.format, processorTypes: read.processorTypes, services: read.controllerServiceTypes };
};
const asBeaconReadsIt = (flow: DesignerFlow) => asBeaconReads(serialiseFlow(flow).text);

const fixtures: [string, string][] = [
  ["the C++ YAML flow", cppYamlFlow],
  ["the C++ YAML flow with parameters", cppYamlParameterFlow],
  ["the Java flow.json with parameters", JSON.stringify(javaParameterFlow, null, 2)],
];

describe("the designer's flow model", () => {
  it.each(fixtures)("reads %s as a graph and writes it back saying the same", (_name, text) => {
    const flow = parseDesignerFlow(text);
    const written = serialiseFlow(flow).text;
    const again = parseDesignerFlow(written);
    expect(again.format).toBe(flow.format);
    expect(again.document).toEqual(flow.document);
    expect(graphOf(again)).toEqual(graphOf(flow));
    expect(asBeaconReads(written)).toEqual(asBeaconReads(text));
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
    (format) => {
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
      expect(asBeaconReadsIt(reread)).toEqual({
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
    (format) => {
      const newId = counter();
      const added = addComponent(
        emptyFlow(format, "pumps"),
        { kind: "processor", type: "InvokeHTTP" },
        newId,
      );
      const named = setProperty(added.flow, added.id, "Basic Authentication Password", "#{http.password}");
      expect(() => asBeaconReadsIt(named)).toThrow(/no parameter context of their process group declares/);
      const declared = declareParameter(named, "http.password", true, newId);
      expect(declareParameter(declared, "http.password", true, newId)).toEqual(declared);
      const read = readFlowDocument(new TextEncoder().encode(serialiseFlow(declared).text), 5 * 1024 * 1024);
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

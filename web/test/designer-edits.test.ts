import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readFlowDocument } from "../../functions/core/flows/document.js";
import { cppYamlFlow, javaParameterFlow } from "../../scripts/test-support/flow-fixtures.js";
import { descriptorFor, paletteOf } from "../src/designer/components.js";
import {
  addComponent,
  emptyFlow,
  type FlowFormat,
  graphOf,
  move,
  parseDesignerFlow,
  serialiseFlow,
  setProperty,
} from "../src/designer/flow-model.js";
import { historyOf, record, redo, UNDO_DEPTH, undo } from "../src/designer/history.js";
import { autoLayout, freeSpot, positionsOf, relayout } from "../src/designer/layout.js";
import { dynamicPropertyProblem, problemsOf } from "../src/designer/problems.js";

const cppManifest = (
  JSON.parse(readFileSync("schemas/c2/examples/cpp/heartbeat-full.json", "utf8")) as {
    agentInfo: { agentManifest: unknown };
  }
).agentInfo.agentManifest;
const palette = paletteOf([{ manifest: cppManifest, agentCount: 2 }]);

const counter = () => {
  let next = 0;
  return () => `id-${++next}`;
};

describe("the designer's positions", () => {
  it("saves a move in a flow.json and reads it back when the version is opened again", () => {
    const flow = parseDesignerFlow(JSON.stringify(javaParameterFlow));
    const [first] = graphOf(flow).nodes;
    const moved = move(flow, first?.id ?? "", { x: 420, y: 96 });
    const reopened = parseDesignerFlow(serialiseFlow(moved).text);
    expect(graphOf(reopened).nodes[0]?.position).toEqual({ x: 420, y: 96 });
    // What the move did not touch stays as it was.
    expect(graphOf(reopened).nodes.slice(1)).toEqual(graphOf(flow).nodes.slice(1));
  });

  it.each<FlowFormat>(["minifi-yaml", "minifi-json"])(
    "saves a move in a C++ flow as the component's position, which Beacon reads as the same flow, in %s",
    async (format) => {
      const yaml = parseDesignerFlow(cppYamlFlow);
      const flow = format === "minifi-yaml" ? yaml : parseDesignerFlow(JSON.stringify(yaml.document));
      const id = graphOf(flow).nodes[0]?.id ?? "";
      const text = serialiseFlow(move(flow, id, { x: 500, y: 40 })).text;
      expect(text).toContain(format === "minifi-yaml" ? "position:\n      x: 500\n      y: 40" : '"x": 500');
      const reopened = parseDesignerFlow(text);
      expect(positionsOf(graphOf(reopened)).get(id)).toEqual({ x: 500, y: 40 });
      const read = await readFlowDocument(new TextEncoder().encode(text), 5 * 1024 * 1024);
      expect(read.processorTypes).toEqual([
        "GenerateFlowFile",
        "LogAttribute",
        "org.apache.nifi.minifi.processors.PutFile",
      ]);
      // A nested group's component moves the same way.
      const put = graphOf(flow, ["inner"]).nodes[0]?.id ?? "";
      expect(graphOf(move(flow, put, { x: 7, y: 8 }), ["inner"]).nodes[0]?.position).toEqual({ x: 7, y: 8 });
    },
  );

  it("lays out only the components without a position, and every one on Re-layout", () => {
    const newId = counter();
    let flow = emptyFlow("nifi-json", "pumps");
    flow = addComponent(flow, { kind: "processor", type: "GenerateFlowFile" }, newId).flow;
    flow = addComponent(flow, { kind: "processor", type: "LogAttribute" }, newId).flow;
    const moved = move(flow, "id-1", { x: 700, y: 300 });
    const graph = graphOf(moved);
    const drawn = positionsOf(graph);
    expect(drawn.get("id-1")).toEqual({ x: 700, y: 300 });
    // A new flow.json component is written at the origin, as NiFi needs a position, and drawn there.
    expect(drawn.get("id-2")).toEqual({ x: 0, y: 0 });
    const laidOut = relayout(moved);
    expect(positionsOf(graphOf(laidOut))).toEqual(autoLayout(graph));
    const cpp = parseDesignerFlow(cppYamlFlow);
    expect(positionsOf(graphOf(cpp))).toEqual(autoLayout(graphOf(cpp)));
  });

  it("puts a new component right of the rightmost one", () => {
    expect(freeSpot([])).toEqual({ x: 16, y: 16 });
    expect(
      freeSpot([
        { x: 16, y: 16 },
        { x: 342, y: 120 },
      ]),
    ).toEqual({ x: 342 + 230 + 96, y: 16 });
  });
});

describe("the designer's undo and redo", () => {
  it("steps back and forward over edits, and a new edit forgets what was undone", () => {
    let history = historyOf("a");
    history = record(history, "b");
    history = record(history, "c");
    expect(record(history, history.present)).toBe(history);
    history = undo(history);
    expect(history.present).toBe("b");
    history = undo(history);
    expect(undo(history)).toEqual(history);
    expect(history.present).toBe("a");
    history = redo(history);
    expect(history.present).toBe("b");
    history = record(history, "d");
    expect(history).toEqual({ past: ["a", "b"], present: "d", future: [] });
    expect(redo(history)).toEqual(history);
  });

  it("undoes a move and a property edit of a flow", () => {
    const flow = parseDesignerFlow(JSON.stringify(javaParameterFlow));
    const id = graphOf(flow).nodes[0]?.id ?? "";
    let history = historyOf(flow);
    history = record(history, move(history.present, id, { x: 9, y: 9 }));
    history = record(history, setProperty(history.present, id, "Topic Name", "t"));
    history = undo(undo(history));
    expect(history.present).toBe(flow);
    expect(redo(redo(history)).present.document).not.toEqual(flow.document);
  });

  it("reaches back a bounded number of edits", () => {
    let history = historyOf(0);
    for (let step = 1; step <= UNDO_DEPTH + 10; step++) history = record(history, step);
    expect(history.past).toHaveLength(UNDO_DEPTH);
  });
});

describe("the designer's dynamic properties", () => {
  const retry = descriptorFor(palette, "org.apache.nifi.minifi.processors.RetryFlowFile");
  const log = descriptorFor(palette, "org.apache.nifi.minifi.processors.LogAttribute");

  it("are offered for a component whose manifest says it takes them", () => {
    expect(retry?.dynamicProperties).toBe(true);
    expect(log?.dynamicProperties).toBe(false);
  });

  it("need a name that is neither empty, described nor set already", () => {
    if (!retry || !log) throw new Error("the C++ manifest lists RetryFlowFile and LogAttribute");
    const described = retry.properties[0]?.name ?? "";
    expect(dynamicPropertyProblem(retry, {}, "  ")).toBe("Give the property a name.");
    expect(dynamicPropertyProblem(retry, {}, described)).toMatch(/is a property of RetryFlowFile already/);
    expect(dynamicPropertyProblem(retry, { "retry.reason": "x" }, "retry.reason")).toBe(
      "retry.reason is set already.",
    );
    expect(dynamicPropertyProblem(log, {}, "anything")).toBe("LogAttribute takes no dynamic properties.");
    expect(dynamicPropertyProblem(retry, {}, "retry.reason")).toBeUndefined();
  });
});

describe("a flow whose class's manifests Beacon does not know", () => {
  it("has nothing to check its components against, rather than a problem for each", () => {
    const flow = parseDesignerFlow(JSON.stringify(javaParameterFlow));
    expect(problemsOf(graphOf(flow), [], 0)).toEqual([]);
    expect(problemsOf(graphOf(flow), palette, 2).map((problem) => problem.message)).toEqual([
      expect.stringContaining(
        "no binary of the class lists org.apache.nifi.processors.kafka.pubsub.PublishKafka",
      ),
      expect.stringContaining("no binary of the class lists"),
    ]);
  });
});

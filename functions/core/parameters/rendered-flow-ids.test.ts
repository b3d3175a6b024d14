import { describe, expect, it } from "vitest";
import { pumpsVersionRecord } from "../../../scripts/test-support/flow-fixtures.js";
import { valuesOverClassOfEachIn } from "../../../scripts/test-support/group-values.js";
import { MemoryFlowCatalog } from "../../adapters/memory/flow-catalog.js";
import { MemoryParameterStore } from "../../adapters/memory/parameter-store.js";
import type { FlowParameter } from "../flows/parameters.js";
import type { ParameterValue } from "./model.js";
import { makeFlowRenderings, renderedFlowIdOf, renderingOf, withRenderings } from "./rendered-flow-ids.js";

const V1 = "a".repeat(64);
const V2 = "b".repeat(64);
const declared: FlowParameter[] = [
  { name: "kafka.brokers", sensitive: false, default: "localhost:9092" },
  { name: "kafka.password", sensitive: true },
  { name: "site", sensitive: false },
];
const value = (name: string, given: ParameterValue) => ({ name, value: given });
const own = (entries: [string, ParameterValue][]) => new Map(entries);

describe("a rendered flow id", () => {
  const base = renderingOf({ hash: V1, parameters: declared }, []);
  if (!base) throw new Error("a version that declares parameters has a rendering");

  it("is the version's hash for a version that declares none, a SHA-1 of its values otherwise", () => {
    expect(renderingOf({ hash: V1 }, [value("site", { value: "x" })])).toBeUndefined();
    expect(base.flowId).toMatch(/^[0-9a-f]{40}$/);
    expect(base.parameters).toEqual([
      { name: "kafka.brokers", sensitive: false, value: { value: "localhost:9092" } },
      { name: "kafka.password", sensitive: true },
      { name: "site", sensitive: false },
    ]);
  });

  it("changes with any declared parameter's value, and with nothing else", () => {
    const ids = new Set([
      base.flowId,
      renderingOf({ hash: V2, parameters: declared }, [])?.flowId,
      renderingOf({ hash: V1, parameters: declared }, [value("site", { value: "7" })])?.flowId,
      renderingOf({ hash: V1, parameters: declared }, [value("site", { value: "" })])?.flowId,
      renderingOf({ hash: V1, parameters: declared }, [value("site", { secretRef: "ssm:/beacon/acme/7" })])
        ?.flowId,
      renderingOf({ hash: V1, parameters: declared }, [value("kafka.brokers", { value: "k:9092" })])?.flowId,
    ]);
    expect(ids.size).toBe(6);
    // A value no declaration names renders nothing.
    expect(renderingOf({ hash: V1, parameters: declared }, [value("other", { value: "x" })])?.flowId).toBe(
      base.flowId,
    );
    // Lengths are spelled: text cannot pass for a value and a name.
    const split = renderingOf(
      {
        hash: V1,
        parameters: [
          { name: "a", sensitive: false },
          { name: "b", sensitive: false },
        ],
      },
      [value("a", { value: "1\nb\nv1:2" })],
    );
    const joined = renderingOf(
      {
        hash: V1,
        parameters: [
          { name: "a", sensitive: false },
          { name: "b", sensitive: false },
        ],
      },
      [value("a", { value: "1" }), value("b", { value: "2" })],
    );
    expect(split?.flowId).not.toBe(joined?.flowId);
  });

  it("takes an agent's own values over the class's, a sensitive parameter only a secret reference", () => {
    expect(renderedFlowIdOf(base)).toBe(base.flowId);
    expect(renderedFlowIdOf(base, own([["other", { value: "x" }]]))).toBe(base.flowId);
    expect(renderedFlowIdOf(base, own([["kafka.password", { value: "plain" }]]))).toBe(base.flowId);
    const mine = renderedFlowIdOf(base, own([["site", { value: "7" }]]));
    expect(mine).toBe(
      renderingOf({ hash: V1, parameters: declared }, [value("site", { value: "7" })])?.flowId,
    );
    // A class value the agent overrides changes nothing of the agent's.
    const classChanged = renderingOf({ hash: V1, parameters: declared }, [value("site", { value: "9" })]);
    expect(classChanged && renderedFlowIdOf(classChanged, own([["site", { value: "7" }]]))).toBe(mine);
  });
});

describe("a class's policy as the cache holds it", () => {
  const version = (hash: string, parameters?: FlowParameter[]) => pumpsVersionRecord(hash, parameters);

  it("names each version that declares parameters by its rendering's flow id, and others as they are", async () => {
    const flows = new MemoryFlowCatalog();
    const parameters = new MemoryParameterStore();
    await flows.add("acme", version(V1), new Uint8Array());
    await flows.add("acme", version(V2, declared), new Uint8Array());
    await parameters.put(
      "acme",
      { layer: "class", className: "pumps" },
      { ...value("site", { value: "7" }), updatedAt: 0, updatedBy: "bob" },
    );
    const renderings = makeFlowRenderings({
      flows,
      parameters,
      valuesOverClassOfEach: valuesOverClassOfEachIn({ parameters }),
    });
    const cached = await renderings.classFlow("acme", "pumps", { target: V2, accepted: [V1, V2, "adopted"] });
    const rendering = renderingOf(version(V2, declared), [value("site", { value: "7" })]);
    expect(cached).toEqual(
      withRenderings({ target: V2, accepted: [V1, V2, "adopted"] }, rendering ? [rendering] : []),
    );
    expect(cached.accepted).toEqual([V1, rendering?.flowId, "adopted"]);

    await parameters.put(
      "acme",
      { layer: "agent", agentId: "pump-7" },
      { ...value("site", { value: "8" }), updatedAt: 0, updatedBy: "bob" },
    );
    const ids = await renderings.agentFlowIds("acme", "pumps", version(V2, declared), ["pump-7", "pump-9"]);
    expect(ids.get("pump-9")).toBe(rendering?.flowId);
    expect(ids.get("pump-7")).toBe(rendering && renderedFlowIdOf(rendering, own([["site", { value: "8" }]])));
    expect(await renderings.agentFlowIds("acme", "pumps", version(V1), ["pump-7"])).toEqual(
      new Map([["pump-7", V1]]),
    );
  });
});

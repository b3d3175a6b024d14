import { describe, expect, it } from "vitest";
import { consoleHarness } from "../../../scripts/test-support/console-harness.js";
import type { FlowParameter, ParameterReference } from "../flows/parameters.js";
import type { Principal } from "../identity/principal.js";
import type { ParameterValue } from "./model.js";
import { parameterReadiness, type ReadinessInput, readinessAfterChange, refuseUnready } from "./readiness.js";

const SECRET = "ssm:/beacon/acme/kafka/password";
const declared: FlowParameter[] = [
  { name: "brokers", sensitive: false },
  { name: "mode", sensitive: false, default: "compress" },
  { name: "password", sensitive: true },
];
const modeReference: ParameterReference = {
  parameter: "mode",
  component: "processor",
  componentName: "compress",
  componentType: "CompressContent",
  property: "Mode",
  value: "#{mode}",
};
/** A binary whose CompressContent takes two modes; `unknown` is one Beacon holds no manifest of. */
const allowedValues = new Map([
  ["cpp", new Map([["CompressContent", new Map([["Mode", ["compress", "decompress"]]])]])],
]);

const values = (entries: Record<string, ParameterValue>) =>
  Object.entries(entries).map(([name, value]) => ({ name, value }));

function inputOf(changes: Partial<ReadinessInput> = {}): ReadinessInput {
  return {
    declared,
    references: [modeReference],
    classValues: values({ brokers: { value: "b:9092" }, password: { secretRef: SECRET } }),
    agents: [
      { agentId: "pump-1", manifestId: "cpp" },
      { agentId: "pump-2", manifestId: "cpp" },
      { agentId: "pump-3", manifestId: "unknown" },
      { agentId: "pump-4" },
    ],
    agentValues: new Map(),
    allowedValues,
    ...changes,
  };
}

describe("parameter readiness", () => {
  it("is ready when every agent gets a value for each declared parameter that its binary takes", () => {
    expect(parameterReadiness(inputOf())).toEqual({ ready: true, agentCount: 4, missing: [], refused: [] });
  });

  it("counts, per parameter the class layer leaves unset, the agents without a value of their own", () => {
    const report = parameterReadiness(
      inputOf({
        classValues: [],
        agentValues: new Map([["pump-2", values({ brokers: { value: "own:9092" } })]]),
      }),
    );
    expect(report).toEqual({
      ready: false,
      agentCount: 4,
      missing: [
        { parameter: "brokers", layer: "class", agentCount: 3, agentIds: ["pump-1", "pump-3", "pump-4"] },
        {
          parameter: "password",
          layer: "class",
          agentCount: 4,
          agentIds: ["pump-1", "pump-2", "pump-3", "pump-4"],
        },
      ],
      refused: [],
    });
  });

  it("takes a sensitive parameter's secret reference unread, and a plain value for it as no value", () => {
    const plain = inputOf({
      classValues: values({ brokers: { value: "b" }, password: { value: "hunter2" } }),
    });
    expect(parameterReadiness(plain).missing).toEqual([expect.objectContaining({ parameter: "password" })]);
    const sensitiveMode = inputOf({
      declared: declared.map((parameter) =>
        parameter.name === "mode" ? { name: "mode", sensitive: true } : parameter,
      ),
      classValues: values({
        brokers: { value: "b" },
        password: { secretRef: SECRET },
        mode: { secretRef: SECRET },
      }),
    });
    expect(parameterReadiness(sensitiveMode).ready).toBe(true);
  });

  it("names the agents whose binary refuses the value they would get, and the layer it comes from", () => {
    const report = parameterReadiness(
      inputOf({
        classValues: values({
          brokers: { value: "b" },
          password: { secretRef: SECRET },
          mode: { value: "squash" },
        }),
        agentValues: new Map([
          ["pump-1", values({ mode: { value: "decompress" } })],
          ["pump-4", values({ mode: { value: "shrink" } })],
        ]),
      }),
    );
    // pump-3's binary is not held and pump-4 runs none Beacon knows: neither refuses anything.
    expect(report).toEqual({
      ready: false,
      agentCount: 4,
      missing: [],
      refused: [
        {
          parameter: "mode",
          processorType: "CompressContent",
          property: "Mode",
          value: "squash",
          allowed: ["compress", "decompress"],
          layer: "class",
          agentCount: 1,
          agentIds: ["pump-2"],
        },
      ],
    });
  });

  it("checks a large class by binary, listing a few agents and counting them all", () => {
    const agents = Array.from({ length: 3000 }, (_, index) => ({
      agentId: `pump-${String(index).padStart(4, "0")}`,
      manifestId: "cpp",
    }));
    const report = parameterReadiness(
      inputOf({ agents, classValues: values({ brokers: { value: "b" }, mode: { value: "squash" } }) }),
    );
    expect(report.missing).toEqual([
      expect.objectContaining({
        parameter: "password",
        agentCount: 3000,
        agentIds: agents.slice(0, 20).map((a) => a.agentId),
      }),
    ]);
    expect(report.refused).toEqual([expect.objectContaining({ value: "squash", agentCount: 3000 })]);
  });

  it("holds a change to what it breaks, not to what was broken before it", () => {
    const before = inputOf({ classValues: values({ password: { secretRef: SECRET } }) });
    const setMode = {
      ...before,
      classValues: [...before.classValues, ...values({ mode: { value: "squash" } })],
    };
    // brokers stays unset for every agent; only the refused mode is the change's.
    expect(readinessAfterChange(before, setMode)).toMatchObject({
      ready: false,
      missing: [],
      refused: [expect.objectContaining({ parameter: "mode", agentIds: ["pump-1", "pump-2"] })],
    });
    const mended = {
      ...before,
      classValues: [...before.classValues, ...values({ brokers: { value: "b" } })],
    };
    expect(readinessAfterChange(before, mended).ready).toBe(true);
    const ownBrokers = inputOf({
      agents: [{ agentId: "pump-1", manifestId: "cpp" }],
      agentValues: new Map([["pump-1", values({ brokers: { value: "own" } })]]),
    });
    const classRemoved = { ...ownBrokers, classValues: values({ password: { secretRef: SECRET } }) };
    expect(readinessAfterChange(ownBrokers, classRemoved).ready).toBe(true);
    const ownRemoved = { ...classRemoved, agentValues: new Map() };
    expect(readinessAfterChange(classRemoved, ownRemoved).missing).toEqual([
      { parameter: "brokers", layer: "class", agentCount: 1, agentIds: ["pump-1"] },
    ]);
  });

  it("refuses with the report and the version in the error's details", () => {
    const report = parameterReadiness(inputOf({ classValues: [] }));
    const version = { className: "pumps", flowHash: "a".repeat(64), truncated: false };
    expect(() => refuseUnready("Publishing the version", version, report)).toThrow(
      expect.objectContaining({
        code: "parameters_not_ready",
        message: expect.stringContaining(
          "the class layer leaves brokers unset: the 4 agents without a value of their own lack it",
        ),
        details: { ...version, agentCount: 4, missing: report.missing, refused: [] },
      }),
    );
    expect(() =>
      refuseUnready("Publishing the version", version, parameterReadiness(inputOf())),
    ).not.toThrow();
  });
});

describe("the console's checks of parameter readiness", () => {
  const operator: Principal = { tenant: "acme", role: "operator", subject: "bob" };
  const flow = (defaults: string) =>
    new TextEncoder().encode(
      JSON.stringify({
        parameterContexts: [
          { name: "site", parameters: [{ name: "site.id", sensitive: false, ...JSON.parse(defaults) }] },
        ],
        rootGroup: {
          identifier: "root",
          parameterContextName: "site",
          processors: [{ identifier: "gen", type: "GenerateFlowFile", properties: { Text: "#{site.id}" } }],
        },
      }),
    );

  async function harness() {
    const console = consoleHarness();
    await console.catalog.put("acme", "pumps", {}, console.now);
    console.agent("acme", "pump-1", "pumps", 0);
    console.agent("acme", "pump-2", "pumps", 0);
    return console;
  }

  it("refuse to publish a version whose parameter the class's agents have no value for, and store nothing", async () => {
    const { api, flows } = await harness();
    await expect(api.flows.upload(operator, "pumps", flow("{}"))).rejects.toMatchObject({
      code: "parameters_not_ready",
      details: { missing: [{ parameter: "site.id", agentCount: 2, agentIds: ["pump-1", "pump-2"] }] },
    });
    expect((await flows.list("acme", "pumps", { limit: 10 })).items).toEqual([]);
    await api.parameters.classValues.put(operator, "pumps", "site.id", { value: "plant-1" });
    expect((await api.flows.upload(operator, "pumps", flow("{}"))).status).toBe(201);
  });

  it("refuse removing the value agents of the class's flow need, at either layer, and keep it", async () => {
    const { api, parameters } = await harness();
    await api.parameters.classValues.put(operator, "pumps", "site.id", { value: "plant" });
    const { body } = await api.flows.upload(operator, "pumps", flow("{}"));
    const hash = (body as { hash: string }).hash;
    expect(
      (await api.rollouts.start(operator, { className: "pumps", flowHash: hash, allowIncompatible: true }))
        .status,
    ).toBe(201);
    await expect(api.parameters.classValues.remove(operator, "pumps", "site.id")).rejects.toMatchObject({
      code: "parameters_not_ready",
      details: { flowHash: hash, missing: [{ parameter: "site.id", agentCount: 2 }] },
    });
    expect(await parameters.get("acme", { layer: "class", className: "pumps" }, "site.id")).toBeDefined();
    await api.parameters.agentValues.put(operator, "pump-1", "site.id", { value: "plant-1" });
    await api.parameters.agentValues.put(operator, "pump-2", "site.id", { value: "plant-2" });
    await api.parameters.classValues.remove(operator, "pumps", "site.id");
    expect(await parameters.get("acme", { layer: "class", className: "pumps" }, "site.id")).toBeUndefined();
    await expect(api.parameters.agentValues.remove(operator, "pump-2", "site.id")).rejects.toMatchObject({
      code: "parameters_not_ready",
      details: { missing: [{ parameter: "site.id", agentCount: 1, agentIds: ["pump-2"] }] },
    });
    expect(await parameters.get("acme", { layer: "agent", agentId: "pump-2" }, "site.id")).toBeDefined();
  });

  it("count the values of the agents' groups, and check a group's value over its members as a class's", async () => {
    const { api, parameters } = await harness();
    await api.agents.label(operator, "pump-1", { set: { site: "north" } });
    await api.groups.create(operator, { name: "north", query: { labels: ["site=north"] } });
    const north = { layer: "group", group: "north" } as const;
    await api.parameters.groupValues.put(operator, "north", "site.id", { value: "north" });
    await api.parameters.agentValues.put(operator, "pump-2", "site.id", { value: "plant-2" });
    // Each agent has a value over the class: the version is published and rolled out with none at the class.
    const { body } = await api.flows.upload(operator, "pumps", flow("{}"));
    const flowHash = (body as { hash: string }).hash;
    await api.rollouts.start(operator, { className: "pumps", flowHash, allowIncompatible: true });
    // pump-1 has the value from its group alone: the group's value is what it needs.
    await expect(api.parameters.groupValues.remove(operator, "north", "site.id")).rejects.toMatchObject({
      code: "parameters_not_ready",
      message: expect.stringMatching(/^Removing site\.id would leave agents of class pumps with a flow/),
      details: {
        className: "pumps",
        missing: [{ parameter: "site.id", agentCount: 1, agentIds: ["pump-1"] }],
      },
    });
    expect(await parameters.get("acme", north, "site.id")).toBeDefined();
    // An own value over the group's may go: the group's value stays under it.
    await api.parameters.agentValues.put(operator, "pump-1", "site.id", { value: "plant-1" });
    await api.parameters.agentValues.remove(operator, "pump-1", "site.id");
    expect(await parameters.get("acme", { layer: "agent", agentId: "pump-1" }, "site.id")).toBeUndefined();
    // Once pump-1 has a value of its own the group's is not needed; pump-2, outside the group, never counted.
    await api.parameters.agentValues.put(operator, "pump-1", "site.id", { value: "plant-1" });
    await api.parameters.groupValues.remove(operator, "north", "site.id");
    expect(await parameters.get("acme", north, "site.id")).toBeUndefined();
  });

  it("refuse to start a rollout of a version the class's agents lack a value for, and start none", async () => {
    const { api, parameters, rollouts } = await harness();
    await api.parameters.classValues.put(operator, "pumps", "site.id", { value: "plant" });
    const { body } = await api.flows.upload(operator, "pumps", flow("{}"));
    await api.parameters.agentValues.put(operator, "pump-1", "site.id", { value: "plant-1" });
    // Removed where the console did not look, as before this check existed: the rollout finds the gap.
    await parameters.remove("acme", { layer: "class", className: "pumps" }, "site.id");
    const flowHash = (body as { hash: string }).hash;
    await expect(
      api.rollouts.start(operator, { className: "pumps", flowHash, allowIncompatible: true }),
    ).rejects.toMatchObject({
      code: "parameters_not_ready",
      details: { flowHash, missing: [{ parameter: "site.id", agentCount: 1, agentIds: ["pump-2"] }] },
    });
    expect((await rollouts.list("acme", { limit: 10 })).items).toEqual([]);
  });
});

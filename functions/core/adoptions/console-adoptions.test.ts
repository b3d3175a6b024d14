import { describe, expect, it, vi } from "vitest";
import { tarGz } from "../../../scripts/common/debug-bundle-form.js";
import { consoleHarness, javaBinary } from "../../../scripts/test-support/console-harness.js";
import { pumpsVersionRecord } from "../../../scripts/test-support/flow-fixtures.js";
import type { MemoryAdoptionStore } from "../../adapters/memory/adoption-store.js";
import { DEFAULT_DEBUG_BUNDLE_DAYS } from "../bundles/model.js";
import { isAcceptedFlow } from "../flows/policy.js";
import type { Principal } from "../identity/principal.js";
import { renderedFlowIdOf, renderingOf } from "../parameters/rendered-flow-ids.js";
import type { MadeCurrent } from "./ports.js";
import { makeAdoptionSettlement } from "./settlement.js";

const operator: Principal = { tenant: "acme", role: "operator", subject: "ops@acme" };
const viewer: Principal = { tenant: "acme", role: "viewer", subject: "eyes@acme" };
const flowJson = JSON.stringify({
  encodingVersion: { majorVersion: 2, minorVersion: 0 },
  rootGroup: {
    identifier: "root",
    name: "pumps",
    processors: [
      { identifier: "gen", name: "Generate", type: "org.apache.nifi.processors.standard.GenerateFlowFile" },
    ],
    processGroups: [],
    controllerServices: [],
  },
});
const DAY = 86_400_000;

/** Class pumps: three agents on the incumbent's flow A (pump-3 seen last), two on its flow B. */
function pumps() {
  const console = consoleHarness();
  const { registry, hotState, now } = console;
  const agent = (agentId: string, flowId: string, seenAgo: number) => {
    registry.add({
      tenant: "acme",
      agentId,
      agentClass: "pumps",
      flowId,
      manifestHash: "m-1",
      manifest: {
        hash: "m-1",
        manifestId: javaBinary.manifestId,
        supportedOperations: [
          { type: "TRANSFER", properties: { DEBUG: {} } },
          { type: "UPDATE", properties: { CONFIGURATION: {} } },
        ],
      },
      firstSeen: now - DAY,
      lastSeen: now - seenAgo,
    });
    hotState.agentStates.set(`acme/${agentId}`, { lastSeen: now - seenAgo, flowId, agentClass: "pumps" });
  };
  agent("pump-1", "incumbent-a", 30_000);
  agent("pump-2", "incumbent-a", 20_000);
  agent("pump-3", "incumbent-a", 1_000);
  agent("gw-1", "incumbent-b", 5_000);
  agent("gw-2", "incumbent-b", 5_000);
  /** The agent uploads its bundle for the adoption's TRANSFER DEBUG, as the intake stores it. */
  const upload = async (operationId: string, agentId: string, bundle: Uint8Array) => {
    const object = { tenant: "acme", operationId, uploadId: `up-${operationId}` };
    await console.debugBundleContent.put(
      object,
      (async function* () {
        yield bundle;
      })(),
    );
    await console.debugBundles.create({
      ...object,
      agentId,
      bytes: bundle.length,
      storedAt: console.clock.now(),
      expiresAt: console.clock.now() + DEFAULT_DEBUG_BUNDLE_DAYS * DAY,
    });
  };
  const adoption = async (adoptionId: string) =>
    (await console.api.adoptions.get(viewer, "pumps", adoptionId)).body as Record<string, unknown>;
  /** The sweeper's settlement, over the same stores. */
  const settlement = makeAdoptionSettlement({ ...console, maxFlowBytes: 5 * 1024 * 1024 });
  const adopt = async (body: Record<string, string>) =>
    ((await console.api.adoptions.adopt(operator, "pumps", body)).body as { adoptionId: string }).adoptionId;
  /** What pump agents' bundles hold: their log and their flow. */
  const javaBundle = () =>
    tarGz([
      { name: "minifi-app.log", bytes: new TextEncoder().encode("started\n") },
      { name: "flow.json", bytes: Buffer.from(flowJson) },
    ]);
  return { ...console, upload, adoption, settlement, adopt, javaBundle };
}

describe("adopting a flow a class's agents run", () => {
  it("shows the class's agents grouped by the flow each reports", async () => {
    const { api } = pumps();
    expect((await api.adoptions.runningFlows(viewer, "pumps")).body).toEqual({
      className: "pumps",
      agentCount: 5,
      withoutFlow: 0,
      flows: [
        { flowId: "incumbent-a", agentCount: 3, agentIds: ["pump-1", "pump-2", "pump-3"] },
        { flowId: "incumbent-b", agentCount: 2, agentIds: ["gw-1", "gw-2"] },
      ],
    });
  });

  it("counts agents on a rendering of a version in force, the class's or their own, as running a flow Beacon holds", async () => {
    const { api, flows, catalog, parameters, registry, now } = pumps();
    const declared = [{ name: "site.id", sensitive: false, default: "site-0" }];
    const { record: version } = await flows.add(
      "acme",
      pumpsVersionRecord("ef".repeat(32), declared, now),
      new TextEncoder().encode("{}"),
    );
    const { record: classRecord } = await catalog.put("acme", "pumps", {}, now);
    catalog.classes.set("acme/pumps", {
      ...classRecord,
      flowPolicy: { target: version.hash, accepted: [version.hash] },
    });
    const set = (scope: Parameters<typeof parameters.put>[1], value: string) =>
      parameters.put("acme", scope, { name: "site.id", value: { value }, updatedAt: now, updatedBy: "bob" });
    await set({ layer: "class", className: "pumps" }, "plant-1");
    await set({ layer: "agent", agentId: "gw-2" }, "plant-2");
    const rendering = renderingOf(version, [{ name: "site.id", value: { value: "plant-1" } }]);
    if (!rendering) throw new Error("the version declares parameters");
    const own = renderedFlowIdOf(rendering, new Map([["site.id", { value: "plant-2" }]]));
    for (const [agentId, flowId] of [
      ["gw-1", rendering.flowId],
      ["gw-2", own],
    ] as const) {
      const agent = await registry.get("acme", agentId);
      if (agent) registry.add({ ...agent, flowId });
    }
    const { flows: running } = (await api.adoptions.runningFlows(viewer, "pumps")).body as {
      flows: { flowId: string; flowHash?: string }[];
    };
    expect(
      running
        .filter((flow) => flow.flowHash === version.hash)
        .map((flow) => flow.flowId)
        .sort(),
    ).toEqual([rendering.flowId, own].sort());
    await expect(api.adoptions.adopt(operator, "pumps", { flowId: own })).rejects.toThrow(/holds flow/);
  });

  it("fetches the flow from the agent seen last, keeps it as the class's current version, and accepts its flow id", async () => {
    const { api, operations, catalog, upload, adoption } = pumps();
    const asked = await api.adoptions.adopt(operator, "pumps", { flowId: "incumbent-a" });
    expect(asked).toMatchObject({
      status: 201,
      body: { state: "requested", agentId: "pump-3", flowId: "incumbent-a" },
    });
    const adoptionId = (asked.body as { adoptionId: string }).adoptionId;
    expect(await operations.get("acme", "pump-3", adoptionId)).toMatchObject({
      operation: "TRANSFER",
      operand: "DEBUG",
      state: "queued",
      args: { target: expect.stringContaining(adoptionId) },
    });
    // Until the bundle is stored the adoption waits.
    expect(await adoption(adoptionId)).toMatchObject({ state: "requested" });

    await upload(
      adoptionId,
      "pump-3",
      tarGz([
        { name: "minifi-app.log", bytes: new TextEncoder().encode("started\n") },
        { name: "flow.json", bytes: Buffer.from(flowJson) },
      ]),
    );
    const adopted = await adoption(adoptionId);
    expect(adopted).toMatchObject({ state: "adopted", bundleEntry: "flow.json", current: true });
    const hash = adopted.flowHash as string;
    expect((await api.flows.get(viewer, "pumps", hash)).body).toMatchObject({
      hash,
      adoptedFlowId: "incumbent-a",
    });
    expect((await api.flows.content(viewer, "pumps", hash)).body).toBe(flowJson);

    const policy = (await catalog.get("acme", "pumps"))?.flowPolicy;
    expect(policy).toEqual({ target: hash, accepted: [hash, "incumbent-a"] });
    // Catch-up leaves the agents running it alone and moves the others.
    expect(isAcceptedFlow(policy as never, "incumbent-a")).toBe(true);
    expect(isAcceptedFlow(policy as never, "incumbent-b")).toBe(false);

    const groups = (await api.adoptions.runningFlows(viewer, "pumps")).body as { flows: unknown[] };
    expect(groups.flows[0]).toMatchObject({ flowId: "incumbent-a", flowHash: hash });
    await expect(api.adoptions.adopt(operator, "pumps", { flowId: "incumbent-a" })).rejects.toThrow(
      /holds flow incumbent-a already/,
    );
  });

  it("keeps an adopted version beside the class's current one without changing its policy", async () => {
    const { api, catalog, upload, adoption } = pumps();
    const current = { target: "c".repeat(64), accepted: ["c".repeat(64)] };
    await catalog.put("acme", "pumps", {}, 0);
    (catalog.classes.get("acme/pumps") as { flowPolicy?: unknown }).flowPolicy = current;
    const asked = await api.adoptions.adopt(operator, "pumps", { flowId: "incumbent-b", agentId: "gw-2" });
    const adoptionId = (asked.body as { adoptionId: string }).adoptionId;
    await upload(
      adoptionId,
      "gw-2",
      tarGz([{ name: "config.yml", bytes: new TextEncoder().encode(flowJson) }]),
    );
    expect(await adoption(adoptionId)).toMatchObject({ state: "adopted", agentId: "gw-2", current: false });
    expect((await catalog.get("acme", "pumps"))?.flowPolicy).toEqual(current);
  });

  it("fails with why when the bundle holds no flow Beacon takes, storing no version and no policy", async () => {
    const { api, catalog, flows, upload, adoption } = pumps();
    const asked = await api.adoptions.adopt(operator, "pumps", { flowId: "incumbent-b" });
    const adoptionId = (asked.body as { adoptionId: string }).adoptionId;
    await upload(
      adoptionId,
      "gw-1",
      tarGz([{ name: "config.yml", bytes: new TextEncoder().encode("{ not a flow") }]),
    );
    expect(await adoption(adoptionId)).toMatchObject({
      state: "failed",
      reason: expect.stringMatching(/flow/),
    });
    expect((await flows.list("acme", "pumps", { limit: 10 })).items).toEqual([]);
    expect((await catalog.get("acme", "pumps"))?.flowPolicy).toBeUndefined();
  });

  it("fails when the agent ends its TRANSFER DEBUG without a bundle", async () => {
    const { api, operations, adoption } = pumps();
    const asked = await api.adoptions.adopt(operator, "pumps", { flowId: "incumbent-a", agentId: "pump-1" });
    const adoptionId = (asked.body as { adoptionId: string }).adoptionId;
    const record = await operations.get("acme", "pump-1", adoptionId);
    if (!record) throw new Error("The adoption queued no TRANSFER DEBUG");
    operations.records.set(`acme/pump-1/${adoptionId}`, {
      ...record,
      state: "failed",
      ackState: "NOT_APPLIED",
    });
    expect(await adoption(adoptionId)).toMatchObject({
      state: "failed",
      reason: "The agent sent no debug bundle. Acknowledged NOT_APPLIED",
    });
  });

  it("refuses a flow no agent of the class reports, and an agent that does not report it", async () => {
    const { api } = pumps();
    await expect(api.adoptions.adopt(operator, "pumps", { flowId: "incumbent-z" })).rejects.toThrow(
      /No agent of class pumps reports flow incumbent-z/,
    );
    await expect(
      api.adoptions.adopt(operator, "pumps", { flowId: "incumbent-a", agentId: "gw-1" }),
    ).rejects.toThrow(/does not report flow incumbent-a/);
  });

  it("settles with nobody reading it: the sweeper's pass keeps the flow and writes the class's policy once the bundle is stored", async () => {
    const { adoptions, catalog, flows, settlement, adopt, upload, javaBundle, adoption } = pumps();
    const adoptionId = await adopt({ flowId: "incumbent-a" });
    expect(await settlement.sweep()).toEqual({ looked: 1, adopted: 0, failed: 0, deferred: 0, errors: [] });
    expect((await adoptions.get("acme", "pumps", adoptionId))?.state).toBe("requested");

    await upload(adoptionId, "pump-3", javaBundle());
    expect(await settlement.sweep()).toEqual({ looked: 1, adopted: 1, failed: 0, deferred: 0, errors: [] });
    const stored = await adoptions.get("acme", "pumps", adoptionId);
    expect(stored).toMatchObject({ state: "adopted", bundleEntry: "flow.json", current: true });
    const hash = stored?.flowHash as string;
    expect((await flows.list("acme", "pumps", { limit: 10 })).items.map((version) => version.hash)).toEqual([
      hash,
    ]);
    expect((await catalog.get("acme", "pumps"))?.flowPolicy).toEqual({
      target: hash,
      accepted: [hash, "incumbent-a"],
    });
    // Settled, it is looked at no more; a read shows what the sweeper stored.
    expect(await settlement.sweep()).toMatchObject({ looked: 0 });
    expect(await adoption(adoptionId)).toMatchObject({ state: "adopted", flowHash: hash, current: true });
  });

  it("fails with nobody reading it when the agent ends its TRANSFER DEBUG without a bundle", async () => {
    const { adoptions, operations, settlement, adopt } = pumps();
    const adoptionId = await adopt({ flowId: "incumbent-b", agentId: "gw-1" });
    const record = await operations.get("acme", "gw-1", adoptionId);
    if (!record) throw new Error("The adoption queued no TRANSFER DEBUG");
    operations.records.set(`acme/gw-1/${adoptionId}`, { ...record, state: "timed_out" });
    expect(await settlement.sweep()).toMatchObject({ looked: 1, failed: 1 });
    expect(await adoptions.get("acme", "pumps", adoptionId)).toMatchObject({
      state: "failed",
      reason: expect.stringMatching(/^The agent sent no debug bundle\./),
    });
  });

  it("leaves what the run's deadline did not reach to the next run", async () => {
    const { settlement, adopt, clock } = pumps();
    await adopt({ flowId: "incumbent-a" });
    await adopt({ flowId: "incumbent-b" });
    expect(await settlement.sweep(clock.now())).toMatchObject({ looked: 0, deferred: 2 });
  });

  it("stores one version and writes the policy once when the sweeper and a read settle it at once", async () => {
    const harness = pumps();
    const { adoptions, catalog, flows, adopt, upload, javaBundle, adoption } = harness;
    // The sweeper's settlement writes the class's policy, then waits while a read settles the same adoption.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sweeperWrites: MadeCurrent[] = [];
    const slowStore = Object.assign(Object.create(adoptions) as MemoryAdoptionStore, {
      async makeCurrent(...args: Parameters<MemoryAdoptionStore["makeCurrent"]>) {
        const made = await adoptions.makeCurrent(...args);
        sweeperWrites.push(made);
        await held;
        return made;
      },
    });
    const sweeper = makeAdoptionSettlement({
      ...harness,
      adoptions: slowStore,
      maxFlowBytes: 5 * 1024 * 1024,
    });
    const adoptionId = await adopt({ flowId: "incumbent-a" });
    await upload(adoptionId, "pump-3", javaBundle());

    const sweeping = sweeper.sweep();
    await vi.waitFor(() => expect(sweeperWrites).toEqual(["made"]));
    const read = await adoption(adoptionId);
    release();
    expect(await sweeping).toMatchObject({ looked: 1, adopted: 1, errors: [] });

    // The read found the policy written already, by the sweeper's settlement of the same adoption: it is current.
    expect(read).toMatchObject({ state: "adopted", current: true });
    expect(await adoption(adoptionId)).toEqual(read);
    const hash = read.flowHash as string;
    expect((await flows.list("acme", "pumps", { limit: 10 })).items).toHaveLength(1);
    expect((await catalog.get("acme", "pumps"))?.flowPolicy).toEqual({
      target: hash,
      accepted: [hash, "incumbent-a"],
    });
  });

  it("lists the class's adoptions newest first, a page at a time, as they stand", async () => {
    const { api, adopt, upload, javaBundle, settlement, clock } = pumps();
    const first = await adopt({ flowId: "incumbent-a", agentId: "pump-1" });
    clock.advance(1_000);
    const second = await adopt({ flowId: "incumbent-b" });
    clock.advance(1_000);
    const third = await adopt({ flowId: "incumbent-a", agentId: "pump-2" });
    await upload(first, "pump-1", javaBundle());
    await settlement.sweep();

    const page = (await api.adoptions.list(viewer, "pumps", { limit: 2 })).body as {
      items: { adoptionId: string; state: string }[];
      nextCursor?: string;
    };
    expect(page.items.map(({ adoptionId, state }) => [adoptionId, state])).toEqual([
      [third, "requested"],
      [second, "requested"],
    ]);
    const rest = (await api.adoptions.list(viewer, "pumps", { limit: 2, cursor: page.nextCursor })).body;
    expect(rest).toEqual({ items: [expect.objectContaining({ adoptionId: first, state: "adopted" })] });
    expect((await api.adoptions.list(viewer, "valves", {})).body).toEqual({ items: [] });
    await expect(api.adoptions.list(viewer, "pumps", { cursor: "not-a-cursor" })).rejects.toThrow(/cursor/);
  });
});

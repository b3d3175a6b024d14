import { describe, expect, it } from "vitest";
import { tarGz } from "../../../scripts/common/debug-bundle-form.js";
import { consoleHarness, javaBinary } from "../../../scripts/test-support/console-harness.js";
import { DEFAULT_DEBUG_BUNDLE_DAYS } from "../bundles/model.js";
import { isAcceptedFlow } from "../flows/policy.js";
import type { Principal } from "../identity/principal.js";

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
  return { ...console, upload, adoption };
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
});

import { describe, expect, it } from "vitest";
import { consoleHarness, javaBinary } from "../../../scripts/test-support/console-harness.js";
import { cppYamlFlow, cppYamlParameterFlow } from "../../../scripts/test-support/flow-fixtures.js";
import { valuesOverClassOfEachIn } from "../../../scripts/test-support/group-values.js";
import type { Principal, Role } from "../identity/principal.js";
import { makeAgentFlowIds, ownValuesOf } from "../parameters/rendered-flow-ids.js";
import { MAX_SKIPPED_LISTED } from "./console-pins.js";

const TENANT = "acme";
const as = (role: Role, classes?: string[]): Principal => ({
  tenant: TENANT,
  role,
  subject: `${role}-user`,
  ...(classes && { classes }),
});
const operator = as("operator");
const flowBytes = (name: string) =>
  new TextEncoder().encode(cppYamlFlow.replace("name: pumps", `name: ${name}`));

/** A class `pumps` with two versions, and an agent in the registry and the cache running the first. */
async function pumps() {
  const harness = consoleHarness();
  const { api, registry, hotState } = harness;
  await api.classes.put(operator, "pumps", {});
  const hashOf = async (name: string) =>
    ((await api.flows.upload(operator, "pumps", flowBytes(name))).body as { hash: string }).hash;
  const first = await hashOf("first");
  const second = await hashOf("second");
  harness.agent(TENANT, "a-1", "pumps", 0, 0);
  const stored = await registry.get(TENANT, "a-1");
  registry.add({ ...(stored as NonNullable<typeof stored>), flowId: first });
  /** The agent's pin as the registry and the cache hold it. */
  const pinOf = async () => ({
    registry: (await registry.get(TENANT, "a-1"))?.pin,
    cache: hotState.pins.get(`${TENANT}/a-1`),
  });
  return { ...harness, first, second, pinOf };
}

describe("pinning an agent", () => {
  it("pins it to the version it runs, in the registry and the cache, sending it nothing", async () => {
    const { api, first, pinOf, now, operations } = await pumps();
    const pinned = await api.pins.pin(operator, "a-1", {});
    expect(pinned.body).toEqual({
      agentId: "a-1",
      pinnedFlow: { flowHash: first, pinnedAt: new Date(now).toISOString(), pinnedBy: "operator-user" },
    });
    const pin = { flowHash: first, flowIds: [first], pinnedAt: now, pinnedBy: "operator-user" };
    expect(await pinOf()).toEqual({ registry: pin, cache: pin });
    expect((await operations.list(TENANT, { agentId: "a-1", limit: 10 })).items).toEqual([]);

    await api.pins.unpin(operator, "a-1");
    expect(await pinOf()).toEqual({ registry: undefined, cache: undefined });
  });

  it("sends an agent pinned to another version than it runs one UPDATE CONFIGURATION to it", async () => {
    const { api, second, pinOf } = await pumps();
    const pinned = await api.pins.pin(operator, "a-1", { flowHash: second });
    expect(pinned.body).toMatchObject({
      pinnedFlow: { flowHash: second },
      operation: { agentId: "a-1", operation: "UPDATE", operand: "CONFIGURATION", state: "queued" },
    });
    expect((await pinOf()).registry?.flowHash).toBe(second);
  });

  it("is for operators and above", async () => {
    const { api, pinOf } = await pumps();
    await expect(api.pins.pin(as("viewer"), "a-1", {})).rejects.toMatchObject({ code: "forbidden" });
    await expect(api.pins.unpin(as("viewer"), "a-1")).rejects.toMatchObject({ code: "forbidden" });
    expect(await pinOf()).toEqual({ registry: undefined, cache: undefined });
    await expect(api.pins.pin(as("admin"), "a-1", {})).resolves.toBeDefined();
  });

  it("reaches, for a principal limited to some classes, only their agents, as if no other existed", async () => {
    const { api, pinOf } = await pumps();
    const request = { path: { agentId: "a-1" }, body: {} };
    const pinAs = (principal: Principal) =>
      api.scopes.within(principal, "class", request, () => api.pins.pin(principal, "a-1", {}));
    await expect(pinAs(as("operator", ["valves"]))).rejects.toMatchObject({ code: "not_found" });
    expect((await pinOf()).registry).toBeUndefined();
    await expect(pinAs(as("operator", ["pumps"]))).resolves.toBeDefined();
    expect((await pinOf()).registry).toBeDefined();
  });

  it("refuses a version its class does not have, and an agent running none Beacon knows without one named", async () => {
    const { api, registry, pinOf } = await pumps();
    await expect(api.pins.pin(operator, "a-1", { flowHash: "0".repeat(64) })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(api.pins.pin(operator, "a-1", { flowHash: "first" })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(api.pins.pin(operator, "nobody", {})).rejects.toMatchObject({ code: "not_found" });
    const stored = await registry.get(TENANT, "a-1");
    registry.add({ ...(stored as NonNullable<typeof stored>), flowId: "a-flow-of-its-own" });
    await expect(api.pins.pin(operator, "a-1", {})).rejects.toMatchObject({ code: "invalid_request" });
    expect(await pinOf()).toEqual({ registry: undefined, cache: undefined });
  });

  it("keeps the pin of an agent that cannot take UPDATE CONFIGURATION, and says it could not be sent (409)", async () => {
    const { api, registry, second, pinOf } = await pumps();
    const stored = await registry.get(TENANT, "a-1");
    const record = stored as NonNullable<typeof stored>;
    registry.add({
      ...record,
      manifest: {
        hash: "hash-pumps",
        manifestId: javaBinary.manifestId,
        supportedOperations: [{ type: "DESCRIBE", properties: {} }],
      },
    });
    await expect(api.pins.pin(operator, "a-1", { flowHash: second })).rejects.toMatchObject({
      code: "operation_not_supported",
    });
    expect((await pinOf()).registry?.flowHash).toBe(second);
  });

  it("changes nothing while the cache is unreachable: heartbeats would not learn of it (503)", async () => {
    const { api, hotState, pinOf } = await pumps();
    hotState.down = true;
    await expect(api.pins.pin(operator, "a-1", {})).rejects.toMatchObject({ code: "cache_unavailable" });
    hotState.down = false;
    expect(await pinOf()).toEqual({ registry: undefined, cache: undefined });
    await api.pins.pin(operator, "a-1", {});
    hotState.down = true;
    await expect(api.pins.unpin(operator, "a-1")).rejects.toMatchObject({ code: "cache_unavailable" });
    hotState.down = false;
    expect((await pinOf()).registry).toBeDefined();
  });

  it("follows the agent's own values: its pin holds the flow id of the version rendered with them", async () => {
    const harness = await pumps();
    const { api, pinOf } = harness;
    const declaring = (
      (await api.flows.upload(operator, "pumps", new TextEncoder().encode(cppYamlParameterFlow))).body as {
        hash: string;
      }
    ).hash;
    await api.pins.pin(operator, "a-1", { flowHash: declaring });
    const renderedWith = async () => {
      const version = await harness.flows.get(TENANT, "pumps", declaring);
      const flowIdOf = await makeAgentFlowIds({
        ...harness,
        valuesOverClassOfEach: valuesOverClassOfEachIn(harness),
      }).withOwnValues(TENANT, "pumps", version as never);
      return flowIdOf(ownValuesOf(await harness.parameters.list(TENANT, { layer: "agent", agentId: "a-1" })));
    };
    const before = (await pinOf()).registry?.flowIds;
    expect(before).toEqual([await renderedWith()]);

    await api.parameters.agentValues.put(operator, "a-1", "mode", { value: "plain" });
    const after = await renderedWith();
    expect(after).not.toBe(before?.[0]);
    expect(await pinOf()).toEqual({
      registry: expect.objectContaining({ flowHash: declaring, flowIds: [after] }),
      cache: expect.objectContaining({ flowHash: declaring, flowIds: [after] }),
    });
  });
});

describe("pinning a group's members", () => {
  /** The class `pumps` of {@link pumps} and `valves`, with agents labelled `ring=a` (a-1 among them) or not. */
  async function ring() {
    const harness = await pumps();
    const { api, registry, first } = harness;
    await api.classes.put(operator, "valves", {});
    const member = async (agentId: string, agentClass: string, flowId: string, ring = "a") => {
      harness.agent(TENANT, agentId, agentClass, 0, 0);
      const stored = await registry.get(TENANT, agentId);
      registry.add({ ...(stored as NonNullable<typeof stored>), flowId, labels: { ring } });
    };
    const stored = await registry.get(TENANT, "a-1");
    registry.add({ ...(stored as NonNullable<typeof stored>), labels: { ring: "a" } });
    await member("a-2", "pumps", first);
    await member("a-3", "pumps", "a-flow-of-its-own");
    await member("b-1", "pumps", first, "b");
    await member("v-1", "valves", "a-valves-flow");
    await api.groups.create(operator, { name: "ring-a", query: { labels: ["ring=a"] } });
    await api.groups.create(operator, {
      name: "ring-a-pumps",
      query: { classes: ["pumps"], labels: ["ring=a"] },
    });
    const pinned = async () =>
      (await registry.query(TENANT, { limit: 100 })).items
        .filter((agent) => agent.pin !== undefined)
        .map((agent) => `${agent.agentId}:${agent.pin?.flowHash}`);
    return { ...harness, pinned };
  }
  const runsNone = { agentId: expect.any(String), reason: expect.stringContaining("runs no flow version") };

  it("pins every member to the version it runs, passes over those it cannot, and unpins them all", async () => {
    const { api, first, pinned, operations } = await ring();
    expect((await api.pins.pinGroup(operator, "ring-a-pumps", {})).body).toEqual({
      pinned: 2,
      skipped: [{ ...runsNone, agentId: "a-3" }],
      skippedCount: 1,
    });
    expect(await pinned()).toEqual([`a-1:${first}`, `a-2:${first}`]);
    expect((await operations.list(TENANT, { agentId: "a-2", limit: 10 })).items).toEqual([]);

    expect((await api.pins.unpinGroup(operator, "ring-a-pumps")).body).toEqual({
      unpinned: 2,
      skipped: [],
      skippedCount: 0,
    });
    expect(await pinned()).toEqual([]);
  });

  it("pins them to a named version of the group's one class, sending it to those running another", async () => {
    const { api, second, pinned, operations } = await ring();
    await expect(api.pins.pinGroup(operator, "ring-a", { flowHash: second })).rejects.toMatchObject({
      code: "invalid_request",
    });
    expect(await pinned()).toEqual([]);
    expect((await api.pins.pinGroup(operator, "ring-a-pumps", { flowHash: second })).body).toMatchObject({
      pinned: 3,
      skippedCount: 0,
    });
    expect(await pinned()).toEqual([`a-1:${second}`, `a-2:${second}`, `a-3:${second}`]);
    expect((await operations.list(TENANT, { agentId: "a-3", limit: 10 })).items).toEqual([
      expect.objectContaining({ operation: "UPDATE", operand: "CONFIGURATION" }),
    ]);
  });

  it("acts, for a principal limited to some classes, only on the members of its classes, counting no other", async () => {
    const { api, first, pinned } = await ring();
    const limited = as("operator", ["pumps"]);
    const request = { path: { groupName: "ring-a" }, body: {} };
    const pinAs = () =>
      api.scopes.within(limited, "members", request, () => api.pins.pinGroup(limited, "ring-a", {}));
    expect((await pinAs()).body).toMatchObject({ pinned: 2, skippedCount: 1 });
    expect(await pinned()).toEqual([`a-1:${first}`, `a-2:${first}`]);

    await api.pins.pinGroup(operator, "ring-a", {});
    expect((await api.pins.unpinGroup(limited, "ring-a")).body).toMatchObject({ unpinned: 2 });
    expect(await pinned()).toEqual([]);
  });

  it("pages through every member with no cap, naming a bounded number of those passed over", async () => {
    const { api, registry } = await ring();
    // More members than a page, each running a flow of its own: every one is passed over.
    for (let index = 0; index < 130; index++) {
      registry.add({
        tenant: TENANT,
        agentId: `m-${String(index).padStart(3, "0")}`,
        agentClass: "pumps",
        firstSeen: 0,
        lastSeen: 0,
        flowId: "a-flow-of-its-own",
        labels: { ring: "a" },
      });
    }
    const { body } = await api.pins.pinGroup(operator, "ring-a-pumps", {});
    expect(body).toMatchObject({ pinned: 2, skippedCount: 131 });
    expect((body as { skipped: unknown[] }).skipped).toHaveLength(MAX_SKIPPED_LISTED);
  });

  it("is for operators and above, and answers 404 for a group the tenant does not have", async () => {
    const { api, pinned } = await ring();
    await expect(api.pins.pinGroup(as("viewer"), "ring-a", {})).rejects.toMatchObject({ code: "forbidden" });
    await expect(api.pins.unpinGroup(as("viewer"), "ring-a")).rejects.toMatchObject({ code: "forbidden" });
    await expect(api.pins.pinGroup(operator, "no-such-group", {})).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await pinned()).toEqual([]);
  });
});

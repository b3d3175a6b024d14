import { expect, it } from "vitest";
import type { AgentRecord, AgentRegistry } from "../../core/agents/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 21);

/** The agent API's registry entries: created once, checkpointed, and the DESCRIBE MANIFEST slot claimed and closed. */
export const agentRegistryContract = contract<AgentRegistry>("the agent registry", (the) => {
  const agent = (agentId: string): AgentRecord => ({
    tenant: the.tenant,
    agentId,
    agentClass: "pumps",
    manifestHash: "manifest-1",
    flowId: "flow-1",
    device: { hostname: "pump-7.plant.example", vCores: 4 },
    firstSeen: START,
    lastSeen: START,
  });

  it("registers an agent once: a second registration changes nothing", async () => {
    const registry = the.subject;
    const record = agent("agent-1");
    expect(await registry.get(the.tenant, "agent-1")).toBeUndefined();
    expect(await registry.register(record)).toBe("created");
    expect(await registry.register({ ...record, agentClass: "valves", lastSeen: START + 1 })).toBe("exists");
    expect(await registry.get(the.tenant, "agent-1")).toEqual(record);
    expect(await registry.get(`${the.tenant}-other`, "agent-1")).toBeUndefined();
  });

  it("checkpoints what changed and keeps what a checkpoint leaves out", async () => {
    const registry = the.subject;
    const record = agent("agent-1");
    await registry.register(record);
    await registry.checkpoint(the.tenant, "agent-1", { lastSeen: START + 60_000, flowId: "flow-2" });
    expect(await registry.get(the.tenant, "agent-1")).toEqual({
      ...record,
      lastSeen: START + 60_000,
      flowId: "flow-2",
    });

    const device = { hostname: "pump-8.plant.example" };
    await registry.checkpoint(the.tenant, "agent-1", {
      lastSeen: START + 120_000,
      agentClass: "valves",
      manifestHash: "manifest-2",
      device,
    });
    expect(await registry.get(the.tenant, "agent-1")).toEqual({
      ...record,
      agentClass: "valves",
      manifestHash: "manifest-2",
      flowId: "flow-2",
      device,
      lastSeen: START + 120_000,
    });
  });

  it("writes an agent it lost back whole at its checkpoint, first seen then", async () => {
    const registry = the.subject;
    await registry.checkpoint(the.tenant, "agent-1", {
      lastSeen: START,
      agentClass: "pumps",
      manifestHash: "manifest-1",
    });
    expect(await registry.get(the.tenant, "agent-1")).toEqual({
      tenant: the.tenant,
      agentId: "agent-1",
      agentClass: "pumps",
      manifestHash: "manifest-1",
      firstSeen: START,
      lastSeen: START,
    });
  });

  it("claims the DESCRIBE slot while none is outstanding or the outstanding one expired", async () => {
    const registry = the.subject;
    expect(await registry.beginDescribe(the.tenant, "agent-1", "op-1", START, START + 300_000)).toBe(false);
    await registry.register(agent("agent-1"));

    expect(await registry.beginDescribe(the.tenant, "agent-1", "op-1", START, START + 300_000)).toBe(true);
    expect(await registry.get(the.tenant, "agent-1")).toMatchObject({
      pendingDescribe: { operationId: "op-1", expiresAt: START + 300_000 },
    });
    expect(await registry.beginDescribe(the.tenant, "agent-1", "op-2", START + 1, START + 300_001)).toBe(
      false,
    );
    // Expired at its expiry time.
    expect(
      await registry.beginDescribe(the.tenant, "agent-1", "op-2", START + 300_000, START + 600_000),
    ).toBe(true);
    expect((await registry.get(the.tenant, "agent-1"))?.pendingDescribe).toEqual({
      operationId: "op-2",
      expiresAt: START + 600_000,
    });
  });

  it("closes only the DESCRIBE it waits on, taking the manifest hash it names", async () => {
    const registry = the.subject;
    expect(await registry.completeDescribe(the.tenant, "agent-1", "op-1", "manifest-2")).toBe(false);
    const record = agent("agent-1");
    await registry.register(record);
    await registry.beginDescribe(the.tenant, "agent-1", "op-1", START, START + 300_000);

    expect(await registry.completeDescribe(the.tenant, "agent-1", "op-0", "manifest-0")).toBe(false);
    expect(await registry.completeDescribe(the.tenant, "agent-1", "op-1", "manifest-2")).toBe(true);
    expect(await registry.get(the.tenant, "agent-1")).toEqual({ ...record, manifestHash: "manifest-2" });
    expect(await registry.completeDescribe(the.tenant, "agent-1", "op-1", "manifest-3")).toBe(false);

    await registry.beginDescribe(the.tenant, "agent-1", "op-2", START, START + 300_000);
    expect(await registry.completeDescribe(the.tenant, "agent-1", "op-2", undefined)).toBe(true);
    expect(await registry.get(the.tenant, "agent-1")).toEqual({ ...record, manifestHash: "manifest-2" });
  });
});

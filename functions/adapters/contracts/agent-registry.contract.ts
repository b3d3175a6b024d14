import { expect, it } from "vitest";
import type { AgentRecord, AgentRegistry } from "../../core/agents/ports.js";
import type { AgentManifest } from "../../core/manifests/agent-manifest.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 21);

/** An agent's manifest as the agent API keeps it: its operations with the values of this agent's properties. */
const manifestOf = (hash: string): AgentManifest => ({
  hash,
  manifestId: "binary-1",
  supportedOperations: [
    { type: "describe", properties: { manifest: {} } },
    {
      type: "update",
      properties: {
        properties: {
          availableProperties: [
            { propertyName: "nifi.c2.agent.identifier", propertyValue: "agent-1", validator: "VALID" },
          ],
        },
      },
    },
  ],
});

/**
 * The agent API's registry entries: created once, checkpointed, the DESCRIBE MANIFEST slot claimed and closed,
 * and the agent's manifest kept.
 */
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

  it("keeps the last-seen time of periodic checkpoints beside the profile, reads giving the later one", async () => {
    const registry = the.subject;
    const record = agent("agent-1");
    await registry.register(record);
    await registry.recordSeen(the.tenant, "agent-1", START + 600_000);
    expect(await registry.get(the.tenant, "agent-1")).toEqual({ ...record, lastSeen: START + 600_000 });

    // A change writes the profile with its own last-seen time; the later of the two counts.
    await registry.checkpoint(the.tenant, "agent-1", { lastSeen: START + 660_000, flowId: "flow-2" });
    expect(await registry.get(the.tenant, "agent-1")).toEqual({
      ...record,
      flowId: "flow-2",
      lastSeen: START + 660_000,
    });
    await registry.recordSeen(the.tenant, "agent-1", START + 1_200_000);
    expect(await registry.get(the.tenant, "agent-1")).toEqual({
      ...record,
      flowId: "flow-2",
      lastSeen: START + 1_200_000,
    });

    // A last-seen time alone registers no agent.
    await registry.recordSeen(the.tenant, "agent-2", START);
    expect(await registry.get(the.tenant, "agent-2")).toBeUndefined();
    expect(await registry.get(`${the.tenant}-other`, "agent-1")).toBeUndefined();
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

  it("closes only the DESCRIBE it waits on, keeping the manifest it brought", async () => {
    const registry = the.subject;
    expect(await registry.completeDescribe(the.tenant, "agent-1", "op-1", manifestOf("manifest-2"))).toBe(
      false,
    );
    const record = agent("agent-1");
    await registry.register(record);
    await registry.beginDescribe(the.tenant, "agent-1", "op-1", START, START + 300_000);

    expect(await registry.completeDescribe(the.tenant, "agent-1", "op-0", manifestOf("manifest-0"))).toBe(
      false,
    );
    expect(await registry.completeDescribe(the.tenant, "agent-1", "op-1", manifestOf("manifest-2"))).toBe(
      true,
    );
    expect(await registry.get(the.tenant, "agent-1")).toEqual({
      ...record,
      manifest: manifestOf("manifest-2"),
    });
    expect(await registry.completeDescribe(the.tenant, "agent-1", "op-1", manifestOf("manifest-3"))).toBe(
      false,
    );

    // A DESCRIBE answered without a manifest closes, and the manifest the agent has stays.
    await registry.beginDescribe(the.tenant, "agent-1", "op-2", START, START + 300_000);
    expect(await registry.completeDescribe(the.tenant, "agent-1", "op-2", undefined)).toBe(true);
    expect(await registry.get(the.tenant, "agent-1")).toEqual({
      ...record,
      manifest: manifestOf("manifest-2"),
    });
  });

  it("keeps the agent's manifest as it sent it: at first sight, at a checkpoint and sent otherwise", async () => {
    const registry = the.subject;
    const record = { ...agent("agent-1"), manifest: manifestOf("manifest-1") };
    await registry.register(record);
    expect(await registry.get(the.tenant, "agent-1")).toEqual(record);

    await registry.checkpoint(the.tenant, "agent-1", {
      lastSeen: START + 1,
      manifestHash: "manifest-2",
      manifest: manifestOf("manifest-2"),
    });
    expect((await registry.get(the.tenant, "agent-1"))?.manifest).toEqual(manifestOf("manifest-2"));
    // A checkpoint that learned no manifest leaves the one the agent has.
    await registry.checkpoint(the.tenant, "agent-1", { lastSeen: START + 2, manifestHash: "manifest-3" });
    expect((await registry.get(the.tenant, "agent-1"))?.manifest).toEqual(manifestOf("manifest-2"));

    expect(await registry.recordManifest(the.tenant, "agent-1", manifestOf("manifest-3"))).toBe(true);
    expect(await registry.get(the.tenant, "agent-1")).toEqual({
      ...record,
      manifestHash: "manifest-3",
      manifest: manifestOf("manifest-3"),
      lastSeen: START + 2,
    });
    expect(await registry.recordManifest(the.tenant, "agent-2", manifestOf("manifest-3"))).toBe(false);
    expect(await registry.get(the.tenant, "agent-2")).toBeUndefined();
  });

  it("hands out copies: what a caller does to a manifest it kept or read stays with the caller", async () => {
    const registry = the.subject;
    const manifest = manifestOf("manifest-1");
    await registry.register({ ...agent("agent-1"), manifest });
    manifest.supportedOperations.push("changed by its writer");
    const read = (await registry.get(the.tenant, "agent-1"))?.manifest;
    read?.supportedOperations.push("changed by its reader");
    expect((await registry.get(the.tenant, "agent-1"))?.manifest).toEqual(manifestOf("manifest-1"));
  });
});

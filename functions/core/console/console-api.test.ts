import { describe, expect, it } from "vitest";
import {
  FakeCertificateAuthority,
  MemoryCertificateStore,
  MemoryClassCatalog,
  MemoryFleetHotState,
  MemoryFleetRegistry,
  MemoryFlowCatalog,
  MemoryManifestCatalog,
} from "../../adapters/memory/console.js";
import {
  ManualClock,
  MemoryEventSink,
  MemoryOperationStore,
  SequentialIds,
} from "../../adapters/memory/index.js";
import { makeOperationLifecycle } from "../operations/lifecycle.js";
import { example } from "../test/fixtures.js";
import { makeConsoleApi } from "./console-api.js";
import { encodeCursor } from "./paging.js";
import { type Principal, principalFromClaims, type Role } from "./principal.js";

const MINUTE = 60_000;
const CHECKPOINT_MS = 10 * MINUTE;
const AGENT_API_URL = "https://agents.beacon.example";

function harness() {
  const ports = {
    catalog: new MemoryClassCatalog(),
    registry: new MemoryFleetRegistry(),
    hotState: new MemoryFleetHotState(),
    manifests: new MemoryManifestCatalog(),
    flows: new MemoryFlowCatalog(),
    certificates: new MemoryCertificateStore(),
    authority: new FakeCertificateAuthority(),
    operations: new MemoryOperationStore(),
    events: new MemoryEventSink(),
    clock: new ManualClock(),
    ids: new SequentialIds(),
  };
  const lifecycle = makeOperationLifecycle({ ...ports, settings: { ackTimeoutMs: 300_000 } });
  const api = makeConsoleApi({
    ...ports,
    lifecycle,
    registryLagMs: CHECKPOINT_MS,
    maxFlowBytes: 5 * 1024 * 1024,
    agentApiUrl: AGENT_API_URL,
  });
  const now = ports.clock.now();
  /** An agent the registry last checkpointed `registryAgo` ms ago and the cache saw `hotAgo` ms ago. */
  const agent = (
    tenant: string,
    agentId: string,
    agentClass: string,
    registryAgo: number,
    hotAgo?: number,
  ) => {
    ports.registry.add({
      tenant,
      agentId,
      agentClass,
      firstSeen: now - 3_600_000,
      lastSeen: now - registryAgo,
      manifestHash: `hash-${agentClass}`,
      device: { hostname: `${agentId}.plant.example` },
    });
    if (hotAgo !== undefined) {
      ports.hotState.agentStates.set(`${tenant}/${agentId}`, {
        lastSeen: now - hotAgo,
        agentClass,
        status: { uptime: 1, queuedFlowFiles: 3 },
        bulletins: [{ level: "ERROR", message: "disk full" }],
      });
    }
  };
  return { ...ports, api, now, agent };
}

const as = (tenant: string, role: Role = "admin"): Principal => ({ tenant, role, subject: `${tenant}-user` });
type Body = Record<string, unknown> & { items: Record<string, unknown>[]; nextCursor?: string };
const bodyOf = async (result: Promise<{ body: unknown }>) => (await result).body as Body;

describe("principalFromClaims", () => {
  const claims = { "custom:tenant": "acme", "custom:role": "operator", sub: "user-1" };

  it("takes tenant, role and subject from the claims", () => {
    expect(principalFromClaims(claims)).toEqual({ tenant: "acme", role: "operator", subject: "user-1" });
  });

  it.each([
    ["no tenant", { ...claims, "custom:tenant": undefined }],
    ["a tenant that could not be a key", { ...claims, "custom:tenant": "a#b" }],
    ["an unknown role", { ...claims, "custom:role": "root" }],
    ["no subject", { ...claims, sub: undefined }],
  ])("refuses a token with %s as unauthenticated", (_label, bad) => {
    expect(() => principalFromClaims(bad)).toThrow(expect.objectContaining({ code: "unauthenticated" }));
  });
});

describe("roles", () => {
  it("let each role do what the roles below it may, and no more", async () => {
    const { api, agent } = harness();
    agent("acme", "a-1", "pumps", 0, 0);
    await expect(api.agents.get(as("acme", "viewer"), "a-1")).resolves.toBeDefined();
    await expect(api.classes.put(as("acme", "viewer"), "pumps", {})).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(api.classes.put(as("acme", "operator"), "pumps", {})).resolves.toBeDefined();
    await expect(api.certificates.list(as("acme", "operator"), {})).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(api.certificates.list(as("acme", "admin"), {})).resolves.toBeDefined();
  });
});

describe("agents", () => {
  it("derive online and offline from the class's heartbeat interval and the cache's last-seen time", async () => {
    const { api, agent, catalog, now } = harness();
    await catalog.put("acme", "pumps", { heartbeatIntervalSeconds: 30 }, now);
    agent("acme", "a-1", "pumps", 9 * MINUTE, 80_000);
    agent("acme", "a-2", "pumps", 9 * MINUTE, 100_000);
    const body = await bodyOf(api.agents.list(as("acme"), {}));
    expect(body.items.map((item) => [item.agentId, item.status, item.lastSeenFrom])).toEqual([
      ["a-1", "online", "cache"],
      ["a-2", "offline", "cache"],
    ]);
  });

  it("fall back to the registry's last-seen time, with the checkpoint interval as slack, when the cache is down", async () => {
    const { api, agent, hotState } = harness();
    agent("acme", "a-1", "pumps", 9 * MINUTE, 10_000);
    agent("acme", "a-2", "pumps", 14 * MINUTE, 10_000);
    hotState.down = true;
    const result = await api.agents.list(as("acme"), {});
    expect((result.body as Body).items.map((item) => [item.agentId, item.status, item.lastSeenFrom])).toEqual(
      [
        ["a-1", "online", "registry"],
        ["a-2", "offline", "registry"],
      ],
    );
    expect(result.cacheError).toBeDefined();
  });

  it("filter on registry and hot values and page with a cursor that holds an agent id only", async () => {
    const { api, agent } = harness();
    for (let index = 0; index < 7; index++) {
      const ago = index % 2 === 0 ? 0 : 3_600_000;
      agent("acme", `a-${index}`, "pumps", ago, ago);
    }
    agent("acme", "b-0", "valves", 0, 0);
    agent("other", "a-9", "pumps", 0, 0);
    const online = (cursor?: string) =>
      bodyOf(api.agents.list(as("acme"), { agentClass: "pumps", status: "online", limit: 2, cursor }));
    const first = await online();
    expect(first.items.map((item) => item.agentId)).toEqual(["a-0", "a-2"]);
    expect(JSON.parse(Buffer.from(first.nextCursor as string, "base64url").toString())).toEqual({
      after: "a-2",
    });
    const second = await online(first.nextCursor);
    expect(second.items.map((item) => item.agentId)).toEqual(["a-4", "a-6"]);
    expect(second.nextCursor).toBeUndefined();

    const byHost = await bodyOf(api.agents.list(as("acme"), { text: "b-0.plant", sort: "-agentId" }));
    expect(byHost.items.map((item) => item.agentId)).toEqual(["b-0"]);
    const descending = await bodyOf(api.agents.list(as("acme"), { sort: "-agentId", limit: 3 }));
    expect(descending.items.map((item) => item.agentId)).toEqual(["b-0", "a-6", "a-5"]);
  });

  it("refuse a cursor that is not one of theirs", async () => {
    const { api } = harness();
    for (const cursor of ["not-base64-json", encodeCursor("a#b"), Buffer.from("[1]").toString("base64url")]) {
      await expect(api.agents.list(as("acme"), { cursor })).rejects.toMatchObject({
        code: "invalid_request",
      });
    }
  });

  it("show the registry with the hot state on top, and another tenant's agent as absent", async () => {
    const { api, agent } = harness();
    agent("acme", "a-1", "pumps", 5 * MINUTE, 1_000);
    const body = await bodyOf(api.agents.get(as("acme"), "a-1"));
    expect(body).toMatchObject({
      agentId: "a-1",
      agentClass: "pumps",
      status: "online",
      lastSeenFrom: "cache",
      manifestHash: "hash-pumps",
      hostname: "a-1.plant.example",
      device: { hostname: "a-1.plant.example" },
      statusSummary: { queuedFlowFiles: 3 },
      bulletins: [{ level: "ERROR", message: "disk full" }],
    });
    await expect(api.agents.get(as("other"), "a-1")).rejects.toMatchObject({ code: "not_found" });
  });

  it("decommission: agent certificates revoked, registry entry and hot state gone", async () => {
    const { api, agent, registry, hotState, certificates } = harness();
    agent("acme", "a-1", "pumps", 0, 0);
    const issued = (await api.certificates.issue(as("acme"), { kind: "agent", agentId: "a-1" })).body as {
      serial: string;
    };
    await api.certificates.issue(as("acme"), { kind: "fleet", fleetName: "plant" });
    await expect(api.agents.decommission(as("other", "admin"), "a-1")).rejects.toMatchObject({
      code: "not_found",
    });
    const body = await bodyOf(api.agents.decommission(as("acme", "operator"), "a-1"));
    expect(body.revokedCertificates).toEqual([issued.serial]);
    expect(await registry.get("acme", "a-1")).toBeUndefined();
    expect(hotState.agentStates.has("acme/a-1")).toBe(false);
    expect(hotState.revoked.has(`acme/${issued.serial}`)).toBe(true);
    expect(certificates.revocationList.size).toBe(1);
  });
});

describe("classes", () => {
  it("count agents by status from the cache, and from the registry without it", async () => {
    const { api, agent, catalog, hotState, now } = harness();
    await catalog.put("acme", "pumps", { description: "Pumps", heartbeatIntervalSeconds: 60 }, now);
    agent("acme", "a-1", "pumps", 0, 0);
    agent("acme", "a-2", "pumps", 20 * MINUTE, 20 * MINUTE);
    const cached = await bodyOf(api.classes.get(as("acme", "viewer"), "pumps"));
    expect(cached).toMatchObject({
      name: "pumps",
      heartbeatIntervalSeconds: 60,
      agents: { total: 2, online: 1, offline: 1 },
      countsFrom: "cache",
    });
    hotState.down = true;
    const fallback = await bodyOf(api.classes.list(as("acme", "viewer"), {}));
    expect(fallback.items[0]).toMatchObject({ agents: { total: 2, online: 1, offline: 1 } });
    expect(fallback.countsFrom).toBe("registry");
  });

  it("are created with 201 and updated with 200, field by field", async () => {
    const { api } = harness();
    const created = await api.classes.put(as("acme", "operator"), "pumps", { description: "Pumps" });
    expect(created.status).toBe(201);
    const updated = await api.classes.put(as("acme", "operator"), "pumps", { heartbeatIntervalSeconds: 30 });
    expect(updated).toMatchObject({
      status: 200,
      body: { description: "Pumps", heartbeatIntervalSeconds: 30, autoCreated: false },
    });
    await expect(api.classes.get(as("other"), "pumps")).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("manifests", () => {
  it("summarise bundles and component types from the stored manifest", async () => {
    const { api, manifests } = harness();
    const manifest = (example("java-2.3.0/ack-describe-manifest.json").agentInfo as Record<string, unknown>)
      .agentManifest as Record<string, unknown>;
    const record = {
      hash: "h1",
      agentType: "minifi-java",
      version: "2.3.0",
      bundleCount: 1,
      processorTypeCount: 1,
      controllerServiceTypeCount: 0,
      supportedOperations: { DESCRIBE: ["MANIFEST"] },
      jsonBytes: 10,
      gzipBytes: 5,
      createdAt: 0,
    };
    manifests.add("acme", record, JSON.stringify(manifest));
    const body = await bodyOf(api.manifests.get(as("acme", "viewer"), "h1"));
    expect(body).toMatchObject({
      hash: "h1",
      agentType: "minifi-java",
      supportedOperations: { DESCRIBE: ["MANIFEST"] },
    });
    expect((body.bundles as unknown[]).length).toBeGreaterThan(0);
    expect(body.processorTypes).toEqual(
      expect.arrayContaining([expect.stringMatching(/^org\.apache\.nifi\./)]),
    );
    expect((await api.manifests.content(as("acme", "viewer"), "h1")).body).toBe(JSON.stringify(manifest));
    await expect(api.manifests.content(as("other", "viewer"), "h1")).rejects.toMatchObject({
      code: "not_found",
    });
  });
});

describe("certificates", () => {
  it("are issued for the caller's tenant, listed without keys and revoked once", async () => {
    const { api, clock, certificates } = harness();
    const issued = await api.certificates.issue(as("acme"), { kind: "agent", agentId: "pump-7" });
    expect(issued).toMatchObject({
      status: 201,
      body: {
        serial: "A",
        kind: "agent",
        agentId: "pump-7",
        subjectDN: "CN=pump-7,OU=agent,O=acme",
        issuedBy: "acme-user",
        state: "valid",
        privateKeyPem: "private key 0A",
      },
    });
    const listed = await bodyOf(api.certificates.list(as("acme"), {}));
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0]).not.toHaveProperty("privateKeyPem");
    expect(JSON.stringify([...certificates.records.values()])).not.toContain("private key");

    const first = await bodyOf(api.certificates.revoke(as("acme"), "0a"));
    clock.advance(MINUTE);
    const again = await bodyOf(api.certificates.revoke(as("acme"), "A"));
    expect(again.revokedAt).toBe(first.revokedAt);
    expect(again.state).toBe("revoked");
    await expect(api.certificates.revoke(as("other"), "A")).rejects.toMatchObject({ code: "not_found" });
    await expect(api.certificates.get(as("other"), "A")).rejects.toMatchObject({ code: "not_found" });
  });

  it("refuse names that could not be a certificate subject", async () => {
    const { api } = harness();
    await expect(
      api.certificates.issue(as("acme"), { kind: "fleet", fleetName: "x,y" }),
    ).rejects.toMatchObject({
      code: "invalid_request",
    });
  });
});

describe("fleet summary", () => {
  it("adds up classes and shows heartbeats per minute, unknown while the cache is down", async () => {
    const { api, agent, catalog, hotState, now } = harness();
    await catalog.put("acme", "pumps", {}, now);
    await catalog.put("acme", "valves", {}, now);
    agent("acme", "a-1", "pumps", 0, 0);
    agent("acme", "b-1", "valves", 0, 3_600_000);
    hotState.heartbeats.set(`acme/${Math.floor(now / MINUTE)}`, 42);
    const body = await bodyOf(api.fleetSummary(as("acme", "viewer")));
    expect(body.agents).toEqual({ total: 2, online: 1, offline: 1 });
    const series = body.heartbeatsPerMinute as { count: number }[];
    expect(series).toHaveLength(15);
    expect(series.at(-1)?.count).toBe(42);
    hotState.down = true;
    expect((await bodyOf(api.fleetSummary(as("acme", "viewer")))).heartbeatsPerMinute).toBeNull();
  });
});

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  AGENT_API_URL,
  BUNDLE_TARGET_BASE,
  consoleHarness as harness,
  javaBinary,
  MINUTE,
  storedJavaBinary,
  takesUpdates,
} from "../../../scripts/test-support/console-harness.js";
import type { AgentClassRecord, AgentRecord } from "../agents/ports.js";
import type { AssetUpload } from "../assets/console-assets.js";
import { MAX_INLINE_ASSET_BYTES } from "../assets/model.js";
import type { IssueRequest } from "../identity/certificates.js";
import { type Principal, principalFromClaims, type Role } from "../identity/principal.js";
import { newOperationId } from "../operations/ids.js";
import { encodeCursor } from "../paging.js";
import { DEFAULT_ROLLOUT_PLAN } from "../rollouts/model.js";

const HOUR = 60 * MINUTE;
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

  it("tell agents of one binary by its canonical identity, whatever their own manifest hashes", async () => {
    const { api, agent, registry, hotState, now } = harness();
    agent("acme", "a-1", "pumps", 0, 0);
    agent("acme", "a-2", "valves", 0, 0);
    agent("acme", "a-3", "valves", 0, 0);
    // a-3 reports a hash whose manifest Beacon has yet to learn: its binary is unknown until it does.
    (registry.agents.get("acme/a-3") as AgentRecord).manifestHash = "hash-new";
    const byBinary = await bodyOf(api.agents.list(as("acme"), { manifestId: javaBinary.manifestId }));
    expect(byBinary.items.map((item) => [item.agentId, item.manifestHash, item.manifestId])).toEqual([
      ["a-1", "hash-pumps", javaBinary.manifestId],
      ["a-2", "hash-valves", javaBinary.manifestId],
    ]);
    const byHash = await bodyOf(api.agents.list(as("acme"), { manifestHash: "hash-valves" }));
    expect(byHash.items.map((item) => item.agentId)).toEqual(["a-2"]);
    // The cache has seen a-2 report a new hash since: the registry's manifest is no longer its current one.
    hotState.agentStates.set("acme/a-2", { lastSeen: now, agentClass: "valves", manifestHash: "hash-2" });
    const moved = await bodyOf(api.agents.get(as("acme"), "a-2"));
    expect(moved).toMatchObject({ manifestHash: "hash-2" });
    expect(moved).not.toHaveProperty("manifestId");
    expect(moved).not.toHaveProperty("supportedOperations");
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
      manifestId: javaBinary.manifestId,
      supportedOperations: takesUpdates,
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
    const issued = (
      await api.certificates.issue(as("acme"), { kind: "agent", agentId: "a-1", csrPem: "csr ec prime256v1" })
    ).body as {
      serial: string;
    };
    await api.certificates.issue(as("acme"), { kind: "fleet", fleetName: "plant", generateKey: true });
    await expect(api.agents.decommission(as("other", "admin"), "a-1")).rejects.toMatchObject({
      code: "not_found",
    });
    const body = await bodyOf(api.agents.decommission(as("acme", "operator"), "a-1"));
    expect(body.revokedCertificates).toEqual([issued.serial]);
    expect(await registry.get("acme", "a-1")).toBeUndefined();
    expect(hotState.agentStates.has("acme/a-1")).toBe(false);
    expect(hotState.revoked.has(`acme/${issued.serial}`)).toBe(true);
    expect(certificates.revocationList.size).toBe(1);
    expect((await certificates.get("acme", issued.serial))?.revocationReason).toBe("cessationOfOperation");
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

  it("give catch-up a changed acknowledgement timeout at once, through the cache's copy of the flow policy", async () => {
    const { api, catalog, hotState } = harness();
    await api.classes.put(as("acme", "operator"), "pumps", { ackTimeoutSeconds: 120 });
    const record = await catalog.get("acme", "pumps");
    const flowPolicy = { target: "f1", accepted: ["f1"], ackTimeoutMs: 120_000 };
    catalog.classes.set("acme/pumps", { ...(record as AgentClassRecord), flowPolicy });
    await api.classes.put(as("acme", "operator"), "pumps", { ackTimeoutSeconds: 30 });
    expect(hotState.classFlows.get("acme/pumps")).toEqual({
      ...flowPolicy,
      ackTimeoutMs: 30_000,
      renderings: [],
    });
  });
});

describe("manifests", () => {
  it("summarise bundles and component types from the stored manifest", async () => {
    const { api, manifests } = harness();
    const { manifestId } = javaBinary;
    const content = javaBinary.canonicalJson;
    manifests.add("acme", storedJavaBinary(), content);
    const body = await bodyOf(api.manifests.get(as("acme", "viewer"), manifestId));
    expect(body).toMatchObject({ manifestId, agentType: "minifi-java" });
    expect(body).not.toHaveProperty("supportedOperations");
    expect((body.bundles as unknown[]).length).toBeGreaterThan(0);
    expect(body.processorTypes).toEqual(
      expect.arrayContaining([expect.stringMatching(/^org\.apache\.nifi\./)]),
    );
    expect((await api.manifests.content(as("acme", "viewer"), manifestId)).body).toBe(content);
    await expect(api.manifests.content(as("other", "viewer"), manifestId)).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(api.manifests.get(as("acme", "viewer"), "hash-pumps")).rejects.toMatchObject({
      code: "not_found",
    });
  });
});

describe("certificates", () => {
  it("are issued for the caller's tenant, listed without keys and revoked once", async () => {
    const { api, clock, certificates } = harness();
    const issued = await api.certificates.issue(as("acme"), {
      kind: "agent",
      agentId: "pump-7",
      generateKey: true,
    });
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

    const first = await bodyOf(api.certificates.revoke(as("acme"), "0a", { reason: "keyCompromise" }));
    expect(first.revocationReason).toBe("keyCompromise");
    clock.advance(MINUTE);
    const again = await bodyOf(api.certificates.revoke(as("acme"), "A", undefined));
    expect(again.revokedAt).toBe(first.revokedAt);
    expect(again.revocationReason).toBe("keyCompromise");
    expect(again.state).toBe("revoked");
    await expect(api.certificates.revoke(as("other"), "A", undefined)).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(api.certificates.get(as("other"), "A")).rejects.toMatchObject({ code: "not_found" });
  });

  it("of one agent are listed from the index by agent, revoked ones included, newest first", async () => {
    const { api, clock } = harness();
    const issue = (agentId: string) =>
      bodyOf(api.certificates.issue(as("acme"), { kind: "agent", agentId, generateKey: true }));
    const older = await issue("pump-7");
    clock.advance(MINUTE);
    await issue("pump-9");
    const newer = await issue("pump-7");
    await api.certificates.revoke(as("acme"), String(older.serial), undefined);
    const ofAgent = await bodyOf(api.certificates.list(as("acme"), { agentId: "pump-7" }));
    expect(ofAgent.items.map(({ serial, state }) => [serial, state])).toEqual([
      [newer.serial, "valid"],
      [older.serial, "revoked"],
    ]);
    expect(ofAgent.nextCursor).toBeUndefined();
    expect((await bodyOf(api.certificates.list(as("other"), { agentId: "pump-7" }))).items).toEqual([]);
    await expect(api.certificates.list(as("acme", "operator"), { agentId: "pump-7" })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(
      api.certificates.list(as("acme"), { agentId: "pump-7", expiring: true }),
    ).rejects.toMatchObject({ code: "invalid_request" });
  });

  it("say retired once the CA that signed them is no longer trusted, as the TLS handshake then refuses them", async () => {
    const { api, authority } = harness();
    await api.certificates.issue(as("acme"), { kind: "agent", agentId: "pump-7", generateKey: true });
    const stateOf = async () => (await bodyOf(api.certificates.get(as("acme"), "A"))).state;
    expect(await stateOf()).toBe("valid");
    // Rotated: the next CA issues, the previous one still trusted beside it.
    authority.trusted = new Set(["fake-ca-1", "fake-ca-2"]);
    authority.signer = "fake-ca-2";
    expect(await stateOf()).toBe("valid");
    // Retired.
    authority.trusted = new Set(["fake-ca-2"]);
    expect(await stateOf()).toBe("retired");
    expect((await bodyOf(api.certificates.list(as("acme"), {}))).items[0]?.state).toBe("retired");
    expect(await api.certificates.agentCertificateExpiry("acme", "pump-7")).toEqual([
      expect.objectContaining({ serial: "A", state: "retired" }),
    ]);
    const renewed = await bodyOf(
      api.certificates.issue(as("acme"), { kind: "agent", agentId: "pump-7", generateKey: true }),
    );
    expect(renewed.state).toBe("valid");
    // A deployment that does not tell its trust store: no certificate is called retired.
    authority.trusted = undefined;
    expect(await stateOf()).toBe("valid");
    // Revoked and expired say so first.
    await api.certificates.revoke(as("acme"), "A", undefined);
    authority.trusted = new Set(["fake-ca-2"]);
    expect(await stateOf()).toBe("revoked");
  });

  it("keep the first record of a serial: a certificate issued with one recorded already is not handed out", async () => {
    const { api, certificates } = harness();
    // The fake CA's first serial, 0A, recorded earlier for another certificate, and revoked.
    const earlier = {
      tenant: "acme",
      serial: "A",
      kind: "fleet" as const,
      fleetName: "plant",
      subjectDN: "CN=plant,OU=fleet,O=acme",
      notBefore: 0,
      notAfter: MINUTE,
      issuedAt: 0,
      issuedBy: "earlier",
    };
    expect(await certificates.add(earlier)).toBe(true);
    await certificates.revoke("acme", "A", 1, "unspecified");
    await expect(
      api.certificates.issue(as("acme"), { kind: "agent", agentId: "pump-7", generateKey: true }),
    ).rejects.toThrow("The agent CA issued serial A twice");
    expect(await certificates.get("acme", "A")).toEqual({
      ...earlier,
      revokedAt: 1,
      revocationReason: "unspecified",
    });
  });

  it("certify the key of a certificate signing request, with no private key in the reply", async () => {
    const { api } = harness();
    for (const csrPem of ["csr rsa 2048", "csr rsa 4096", "csr ec prime256v1", "csr ec secp384r1"]) {
      const issued = await bodyOf(
        api.certificates.issue(as("acme"), { kind: "agent", agentId: "pump-7", csrPem }),
      );
      expect(issued).toMatchObject({
        subjectDN: "CN=pump-7,OU=agent,O=acme",
        certificatePem: expect.any(String),
      });
      expect(issued).not.toHaveProperty("privateKeyPem");
    }
  });

  it.each([
    ["a forged signature", "csr ec prime256v1 forged", "signature"],
    ["a short RSA key", "csr rsa 1024", "at least 2048 bits"],
    ["a curve agents may not take", "csr ec secp521r1", "P-256 or P-384"],
    ["an Ed25519 key", "csr ed25519 -", "RSA (2048 bits or more) or EC"],
    ["something that is no request", "hello", "not a placeholder"],
  ])("refuse a certificate signing request with %s", async (_label, csrPem, message) => {
    const { api, certificates } = harness();
    await expect(
      api.certificates.issue(as("acme"), { kind: "agent", agentId: "pump-7", csrPem }),
    ).rejects.toMatchObject({ code: "invalid_csr", message: expect.stringContaining(message) });
    expect(certificates.records.size).toBe(0);
  });

  it("generate a key pair only when asked to, and never for a request that also sends one", async () => {
    const { api } = harness();
    const neither = { kind: "agent", agentId: "pump-7" } as IssueRequest;
    await expect(api.certificates.issue(as("acme"), neither)).rejects.toMatchObject({
      code: "invalid_request",
    });
    const both = { kind: "agent", agentId: "pump-7", csrPem: "csr rsa 2048", generateKey: true } as unknown;
    await expect(api.certificates.issue(as("acme"), both as IssueRequest)).rejects.toMatchObject({
      code: "invalid_request",
    });
  });

  it("list those expiring within the warning window or a window of the caller's, soonest first, revoked ones left out", async () => {
    const { api, clock } = harness();
    const issue = async (agentId: string, validityDays: number) =>
      (
        await bodyOf(
          api.certificates.issue(as("acme"), { kind: "agent", agentId, validityDays, generateKey: true }),
        )
      ).serial as unknown as string;
    const [in40, in10, in20, in5, in400] = [
      await issue("pump-40", 40),
      await issue("pump-10", 10),
      await issue("pump-20", 20),
      await issue("pump-5", 5),
      await issue("pump-400", 400),
    ];
    await api.certificates.revoke(as("acme"), in5, undefined);
    await api.certificates.issue(as("other"), {
      kind: "agent",
      agentId: "pump-1",
      validityDays: 1,
      generateKey: true,
    });

    const soon = await bodyOf(api.certificates.list(as("acme"), { expiring: true }));
    expect(soon.items.map((item) => item.serial)).toEqual([in10, in20]);
    expect(soon).toMatchObject({ expiringWithinDays: 30 });
    const wider = await bodyOf(api.certificates.list(as("acme"), { expiringWithinDays: 60, limit: 2 }));
    expect(wider.items.map((item) => item.serial)).toEqual([in10, in20]);
    const next = await bodyOf(
      api.certificates.list(as("acme"), { expiringWithinDays: 60, limit: 2, cursor: wider.nextCursor }),
    );
    expect(next.items.map((item) => item.serial)).toEqual([in40]);
    expect(next.nextCursor).toBeUndefined();
    // Expired ones no longer expire: they are past.
    clock.advance(15 * 86_400_000);
    const later = await bodyOf(api.certificates.list(as("acme"), { expiring: true }));
    expect(later.items.map((item) => item.serial)).toEqual([in20, in40]);
    const all = await bodyOf(api.certificates.list(as("acme"), { limit: 100 }));
    expect(all.items.map((item) => item.serial)).toContain(in400);
    await expect(
      api.certificates.list(as("acme"), { expiring: true, cursor: all.nextCursor ?? encodeCursor("A") }),
    ).rejects.toMatchObject({ code: "invalid_request" });
  });

  it("show on the agent when its certificates expire, soonest first, revoked ones left out", async () => {
    const { api, agent } = harness();
    agent("acme", "pump-7", "pumps", 0, 0);
    const issue = async (validityDays: number) =>
      (
        await bodyOf(
          api.certificates.issue(as("acme"), {
            kind: "agent",
            agentId: "pump-7",
            validityDays,
            generateKey: true,
          }),
        )
      ).serial as unknown as string;
    const later = await issue(300);
    const sooner = await issue(20);
    const revoked = await issue(10);
    await api.certificates.revoke(as("acme"), revoked, undefined);
    const view = await bodyOf(api.agents.get(as("acme", "viewer"), "pump-7"));
    expect(view.certificates).toEqual([
      {
        serial: sooner,
        notAfter: new Date(Date.UTC(2026, 10, 21) + 20 * 86_400_000).toISOString(),
        state: "valid",
      },
      {
        serial: later,
        notAfter: new Date(Date.UTC(2026, 10, 21) + 300 * 86_400_000).toISOString(),
        state: "valid",
      },
    ]);
  });

  it("refuse names that could not be a certificate subject", async () => {
    const { api } = harness();
    await expect(
      api.certificates.issue(as("acme"), { kind: "fleet", fleetName: "x,y", generateKey: true }),
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

describe("rollouts", () => {
  const GENERATE = "org.apache.nifi.processors.standard.GenerateFlowFile";
  const canaryOfTwo = { canary: { count: 2 }, batchSize: 2, batchIntervalSeconds: 0, soakSeconds: 0 };
  /** A MiNiFi Java flow.json of one processor; `name` tells versions apart. */
  const flowOf = (name: string, processorType = GENERATE) =>
    new TextEncoder().encode(
      JSON.stringify({
        encodingVersion: { majorVersion: 2, minorVersion: 0 },
        controllerServices: [],
        rootGroup: {
          identifier: "root",
          name,
          processors: [{ identifier: "p", type: processorType }],
          controllerServices: [],
          processGroups: [],
        },
      }),
    );

  /** Four online agents of class pumps whose manifest (the Java example's) takes UPDATE CONFIGURATION. */
  function fleet() {
    const ports = harness();
    for (const index of [1, 2, 3, 4]) ports.agent("acme", `a-${index}`, "pumps", 0, 0);
    ports.manifests.add("acme", storedJavaBinary(), javaBinary.canonicalJson);
    const publish = async (name: string, processorType?: string) =>
      (
        (await ports.api.flows.upload(as("acme", "operator"), "pumps", flowOf(name, processorType))).body as {
          hash: string;
        }
      ).hash;
    const start = (flowHash: string, request: Record<string, unknown> = {}, role: Role = "operator") =>
      ports.api.rollouts.start(as("acme", role), { className: "pumps", flowHash, ...request });
    const rolloutIdOf = async (result: Promise<{ body: unknown }>) =>
      (await bodyOf(result)).rolloutId as string;
    return { ...ports, publish, start, rolloutIdOf };
  }

  it("start with the canary queued at once, shown to viewers, and refuse a second one while it runs", async () => {
    const { api, operations, publish, start } = fleet();
    const hash = await publish("v1");
    await expect(start(hash, {}, "viewer")).rejects.toMatchObject({ code: "forbidden" });
    const started = await start(hash, { plan: canaryOfTwo });
    expect(started).toMatchObject({
      status: 201,
      body: {
        className: "pumps",
        toFlow: hash,
        state: "canary",
        classSize: 4,
        canarySize: 2,
        batches: 1,
        counts: { selected: 2, updating: 2 },
        createdBy: "acme-user",
        plan: { ...DEFAULT_ROLLOUT_PLAN, ...canaryOfTwo },
      },
    });
    expect(started.body).not.toHaveProperty("fromFlow");
    const updates = [...operations.records.values()];
    expect(updates).toHaveLength(2);
    for (const update of updates) {
      expect(update).toMatchObject({
        operation: "UPDATE",
        operand: "CONFIGURATION",
        args: { location: `${AGENT_API_URL}/c2/api/flows/${hash}/content`, flowId: hash },
        state: "queued",
      });
    }

    const rolloutId = (started.body as { rolloutId: string }).rolloutId;
    const viewer = as("acme", "viewer");
    expect((await api.rollouts.get(viewer, rolloutId)).body).toEqual(started.body);
    expect((await bodyOf(api.rollouts.list(viewer, { className: "pumps" }))).items).toEqual([started.body]);
    expect((await bodyOf(api.rollouts.list(viewer, { className: "valves" }))).items).toEqual([]);
    const members = await bodyOf(api.rollouts.agents(viewer, rolloutId, { limit: 1 }));
    expect(members.items).toEqual([
      expect.objectContaining({ batch: 0, state: "updating", operationId: updates[0]?.operationId }),
    ]);
    const rest = await bodyOf(api.rollouts.agents(viewer, rolloutId, { cursor: members.nextCursor }));
    expect(rest.items.map((item) => item.operationId)).toEqual([updates[1]?.operationId]);
    expect((await bodyOf(api.classes.get(viewer, "pumps"))).activeRolloutId).toBe(rolloutId);

    await expect(start(await publish("v2"))).rejects.toMatchObject({ code: "rollout_in_progress" });
    await expect(api.rollouts.get(as("other"), rolloutId)).rejects.toMatchObject({ code: "not_found" });
    await expect(api.rollouts.agents(as("other"), rolloutId, {})).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("say how often the sweeper runs, and which updating agents report the new version before its next run does", async () => {
    const { api, hotState, publish, start, now } = fleet();
    const hash = await publish("v1");
    const started = await bodyOf(start(hash, { plan: canaryOfTwo }));
    expect(started.sweeperIntervalSeconds).toBe(60);
    const rolloutId = started.rolloutId as string;
    const viewer = as("acme", "viewer");
    const selected = (await bodyOf(api.rollouts.agents(viewer, rolloutId, {}))).items as {
      agentId: string;
    }[];
    const [applied, waiting] = selected.map((member) => member.agentId);
    hotState.agentStates.set(`acme/${applied}`, { lastSeen: now, agentClass: "pumps", flowId: hash });
    hotState.agentStates.set(`acme/${waiting}`, { lastSeen: now, agentClass: "pumps", flowId: "old" });
    expect((await bodyOf(api.rollouts.agents(viewer, rolloutId, {}))).items).toEqual([
      expect.objectContaining({ agentId: applied, state: "updating", runsNewVersion: true }),
      expect.objectContaining({ agentId: waiting, state: "updating", runsNewVersion: false }),
    ]);
    expect((await bodyOf(api.rollouts.get(viewer, rolloutId))).counts).toMatchObject({ updating: 2 });
  });

  it("refuse a class or version they do not know with not_found, and one some agents could not run unless allowed", async () => {
    const { rollouts, publish, start } = fleet();
    await expect(start("0".repeat(64))).rejects.toMatchObject({ code: "not_found" });
    const hash = await publish("v1");
    await expect(start(hash, { className: "valves" })).rejects.toMatchObject({ code: "not_found" });
    const missing = await publish("v1-put", "org.example.PutNowhere");
    await expect(start(missing)).rejects.toMatchObject({
      code: "flow_incompatible",
      message: expect.stringContaining("4 agents"),
    });
    expect(rollouts.rollouts.size).toBe(0);
    expect(await start(missing, { allowIncompatible: true })).toMatchObject({ status: 201 });
  });

  it.each([
    ["a canary of no agents", { canary: { count: 0 } }],
    ["a fractional canary count", { canary: { count: 1.5 } }],
    ["a canary of 0 percent", { canary: { percent: 0 } }],
    ["a threshold over 100 percent", { failureThreshold: { percent: 101 } }],
    ["an empty batch", { batchSize: 0 }],
    ["a fractional interval", { batchIntervalSeconds: 0.5 }],
    ["a negative soak", { soakSeconds: -1 }],
    ["an unknown failure action", { onFailure: "ignore" }],
  ])("refuse a plan with %s as invalid, starting nothing", async (_label, plan) => {
    const { rollouts, operations, publish, start } = fleet();
    const hash = await publish("v1");
    await expect(start(hash, { plan })).rejects.toMatchObject({ code: "invalid_request" });
    expect(rollouts.rollouts.size).toBe(0);
    expect(operations.records.size).toBe(0);
  });

  it("pause, resume and abort for operators only, each where the rollout's state allows it", async () => {
    const { api, operations, publish, start, rolloutIdOf } = fleet();
    const rolloutId = await rolloutIdOf(start(await publish("v1"), { plan: canaryOfTwo }));
    const operator = as("acme", "operator");
    await expect(api.rollouts.pause(as("acme", "viewer"), rolloutId)).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(api.rollouts.pause(operator, "ro-unknown")).rejects.toMatchObject({ code: "not_found" });
    await expect(api.rollouts.pause(as("other", "admin"), rolloutId)).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(api.rollouts.resume(operator, rolloutId)).rejects.toMatchObject({ code: "rollout_state" });

    const paused = await bodyOf(api.rollouts.pause(operator, rolloutId));
    expect(paused).toMatchObject({ state: "paused", resumeTo: "canary", reason: "Paused by acme-user" });
    await expect(api.rollouts.pause(operator, rolloutId)).rejects.toMatchObject({ code: "rollout_state" });
    const resumed = await bodyOf(api.rollouts.resume(operator, rolloutId));
    expect(resumed.state).toBe("canary");
    expect(resumed).not.toHaveProperty("resumeTo");

    // The class had no flow before: the rollout ends where it stands, its undelivered updates cancelled.
    const aborted = await bodyOf(api.rollouts.abort(operator, rolloutId));
    expect(aborted).toMatchObject({ state: "aborted", finishedAt: expect.any(String) });
    expect([...operations.records.values()].map((record) => record.state)).toEqual([
      "cancelled",
      "cancelled",
    ]);
    for (const action of ["pause", "resume", "abort"] as const) {
      await expect(api.rollouts[action](operator, rolloutId)).rejects.toMatchObject({
        code: "rollout_state",
      });
    }
    expect((await bodyOf(api.classes.get(operator, "pumps"))).activeRolloutId).toBeUndefined();
  });

  it("show on the class the flow its agents are brought to and the rollout under way, and return it on abort", async () => {
    const { api, catalog, hotState, operations, publish, start, rolloutIdOf } = fleet();
    const operator = as("acme", "operator");
    const described = await bodyOf(api.classes.put(operator, "pumps", { ackTimeoutSeconds: 120 }));
    expect(described.ackTimeoutSeconds).toBe(120);
    expect(described).not.toHaveProperty("flow");
    // As an earlier rollout left it.
    const previous = await publish("v0");
    const record = catalog.classes.get("acme/pumps");
    if (record) record.flowPolicy = { target: previous, accepted: [previous], ackTimeoutMs: 120_000 };

    const next = await publish("v1");
    const rolloutId = await rolloutIdOf(start(next, { plan: canaryOfTwo }));
    expect(await bodyOf(api.classes.get(operator, "pumps"))).toMatchObject({
      ackTimeoutSeconds: 120,
      flow: { target: previous, accepted: [previous, next], targetVersion: { version: 1 } },
      activeRolloutId: rolloutId,
    });
    expect(hotState.classFlows.get("acme/pumps")).toEqual({
      target: previous,
      accepted: [previous, next],
      ackTimeoutMs: 120_000,
      renderings: [],
    });
    expect([...operations.records.values()].map((update) => update.ackTimeoutMs)).toEqual([120_000, 120_000]);

    // Neither update was delivered: both are cancelled, so the rollback is over at once.
    const aborted = await bodyOf(api.rollouts.abort(operator, rolloutId));
    expect(aborted).toMatchObject({
      state: "aborted",
      fromFlow: previous,
      fromVersion: { version: 1 },
      toVersion: { version: 2 },
      counts: { rolledBack: 2 },
    });
    const after = await bodyOf(api.classes.get(operator, "pumps"));
    expect(after.flow).toEqual({ target: previous, accepted: [previous], targetVersion: { version: 1 } });
    expect(after).not.toHaveProperty("activeRolloutId");
    expect(hotState.classFlows.get("acme/pumps")).toMatchObject({ accepted: [previous] });
  });
});

describe("assets", () => {
  const bytes = new TextEncoder().encode("pump-7 42.0\npump-9 17.5\n");
  const idOfBytes = createHash("sha256").update(bytes).digest("hex");
  const upload = (
    api: ReturnType<typeof harness>["api"],
    request: Partial<AssetUpload> = {},
    role: Role = "operator",
  ) =>
    api.assets.upload(as("acme", role), {
      name: "calibration.txt",
      contentType: "text/plain",
      bytes,
      ...request,
    });

  it("are stored by the SHA-256 of their bytes, once, and read back by their tenant only", async () => {
    const { api, assets, assetContent } = harness();
    const created = await upload(api);
    expect(created).toMatchObject({
      status: 201,
      body: {
        assetId: idOfBytes,
        name: "calibration.txt",
        sizeBytes: bytes.length,
        contentType: "text/plain",
        usedBy: [],
      },
    });
    expect(await upload(api)).toMatchObject({ status: 200, body: { assetId: idOfBytes } });
    expect(await assetContent.read("acme", idOfBytes)).toMatchObject({ contentType: "text/plain" });
    expect((await api.assets.get(as("acme", "viewer"), idOfBytes)).body).toEqual(created.body);
    await expect(api.assets.get(as("other"), idOfBytes)).rejects.toMatchObject({ code: "not_found" });
    await expect(upload(api, {}, "viewer")).rejects.toMatchObject({ code: "forbidden" });
    expect(assets.records.size).toBe(1);
  });

  it("refuse the same bytes under another name: an asset is its bytes, under one name", async () => {
    const { api } = harness();
    await upload(api);
    await expect(upload(api, { name: "other.txt" })).rejects.toMatchObject({ code: "asset_exists" });
  });

  it.each([
    ["no name", { name: undefined }, "invalid_request"],
    ["a path", { name: "../../etc/passwd" }, "invalid_request"],
    ["a folder", { name: "models/pump.onnx" }, "invalid_request"],
    ["a hidden file", { name: ".bashrc" }, "invalid_request"],
    ["dot dot", { name: "a..b" }, "invalid_request"],
    ["a backslash", { name: "..\\evil" }, "invalid_request"],
    ["a NUL", { name: "pump\u0000.txt" }, "invalid_request"],
    ["no content type", { contentType: undefined }, "unsupported_media_type"],
    ["a form", { contentType: "multipart/form-data; boundary=x" }, "unsupported_media_type"],
    ["an urlencoded form", { contentType: "application/x-www-form-urlencoded" }, "unsupported_media_type"],
    ["no media type", { contentType: "bytes" }, "unsupported_media_type"],
    ["no bytes", { bytes: new Uint8Array() }, "invalid_request"],
    ["over the limit", { bytes: new Uint8Array(MAX_INLINE_ASSET_BYTES + 1) }, "payload_too_large"],
  ] as const)("are refused with %s, and nothing is stored", async (_, request, code) => {
    const { api, assets, assetContent } = harness();
    await expect(upload(api, request as Partial<AssetUpload>)).rejects.toMatchObject({ code });
    expect(assets.records.size).toBe(0);
    expect(assetContent.objects.size).toBe(0);
  });

  it("take up to the limit", async () => {
    const { api } = harness();
    const largest = new Uint8Array(MAX_INLINE_ASSET_BYTES).fill(7);
    expect(await upload(api, { bytes: largest, contentType: "application/octet-stream" })).toMatchObject({
      status: 201,
      body: { sizeBytes: MAX_INLINE_ASSET_BYTES },
    });
  });

  it("list page by page with a cursor that holds an asset id only", async () => {
    const { api } = harness();
    for (const text of ["a", "b", "c"]) {
      await upload(api, { name: `${text}.txt`, bytes: new TextEncoder().encode(text) });
    }
    const first = await bodyOf(api.assets.list(as("acme", "viewer"), { limit: 2 }));
    expect(first.items).toHaveLength(2);
    const second = await bodyOf(
      api.assets.list(as("acme", "viewer"), { limit: 2, cursor: first.nextCursor }),
    );
    expect([...first.items, ...second.items].map((item) => item.name).sort()).toEqual([
      "a.txt",
      "b.txt",
      "c.txt",
    ]);
    expect((await bodyOf(api.assets.list(as("other"), {}))).items).toEqual([]);
    await expect(api.assets.list(as("acme"), { cursor: "not-a-cursor" })).rejects.toMatchObject({
      code: "invalid_request",
    });
  });

  it("are deleted with their bytes, by an operator of their tenant", async () => {
    const { api, assets, assetContent } = harness();
    await upload(api);
    await expect(api.assets.delete(as("other"), idOfBytes)).rejects.toMatchObject({ code: "not_found" });
    await expect(api.assets.delete(as("acme", "viewer"), idOfBytes)).rejects.toMatchObject({
      code: "forbidden",
    });
    expect((await api.assets.delete(as("acme", "operator"), idOfBytes)).body).toMatchObject({
      assetId: idOfBytes,
    });
    expect(assets.records.size).toBe(0);
    expect(assetContent.objects.size).toBe(0);
    await expect(api.assets.delete(as("acme"), idOfBytes)).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("resource sets and asset operations", () => {
  const text = (value: string) => new TextEncoder().encode(value);

  /** Four online agents of class pumps running the C++ agent, whose manifest takes SYNC RESOURCE and UPDATE ASSET. */
  async function assetFleet(
    build: { agentType: string; version: string } = { agentType: "cpp", version: "0.99.2" },
  ) {
    const ports = harness();
    // Their manifest takes SYNC RESOURCE and UPDATE ASSET; its binary says which agent and version it is.
    for (const index of [1, 2, 3, 4]) {
      ports.agent("acme", `a-${index}`, "pumps", 0, 0);
      (ports.registry.agents.get(`acme/a-${index}`) as AgentRecord).manifest = {
        hash: "hash-pumps",
        manifestId: "binary-pumps",
        supportedOperations: [
          { type: "SYNC", properties: { RESOURCE: {} } },
          { type: "UPDATE", properties: { ASSET: {}, CONFIGURATION: {} } },
        ],
      };
    }
    ports.manifests.add("acme", { ...storedJavaBinary(), manifestId: "binary-pumps", ...build }, "{}");
    const store = async (name: string, bytes = text(name)) =>
      (
        (
          await ports.api.assets.upload(as("acme", "operator"), {
            name,
            contentType: "application/octet-stream",
            bytes,
          })
        ).body as { assetId: string }
      ).assetId;
    return { ...ports, store };
  }

  it("push a class's set with SYNC RESOURCE to each of its agents, the whole set in the documented object form", async () => {
    const { api, store, operations } = await assetFleet();
    const labels = await store("labels.txt");
    const model = await store("model.onnx");
    const result = await api.resourceSets.put(as("acme", "operator"), "pumps", {
      items: [{ assetId: model, path: "models" }, { assetId: labels }],
    });
    expect(result.status).toBe(201);
    const body = result.body as {
      digest: string;
      items: unknown[];
      operations: { agentId: string; operationId: string }[];
    };
    expect(body.items).toEqual([
      { assetId: labels, name: "labels.txt", path: "" },
      { assetId: model, name: "model.onnx", path: "models" },
    ]);
    expect(body.operations.map((operation) => operation.agentId).sort()).toEqual([
      "a-1",
      "a-2",
      "a-3",
      "a-4",
    ]);
    const [queued] = await operations.open("acme", "a-1");
    expect(queued).toMatchObject({
      operation: "SYNC",
      operand: "RESOURCE",
      args: {
        globalHash: { digest: body.digest, hashType: "SHA-256" },
        resourceList: [
          {
            resourceId: labels,
            resourceName: "labels.txt",
            resourceType: "ASSET",
            resourcePath: "",
            digest: labels,
            hashType: "SHA-256",
            url: `${AGENT_API_URL}/c2/api/assets/${labels}/content`,
          },
          expect.objectContaining({ resourceId: model, resourcePath: "models" }),
        ],
      },
    });
    // Every scalar an agent reads is a string.
    const leaves = (value: unknown): unknown[] =>
      typeof value === "object" && value !== null ? Object.values(value).flatMap(leaves) : [value];
    expect(leaves(queued?.args).filter((leaf) => typeof leaf !== "string")).toEqual([]);
    expect((await api.resourceSets.get(as("acme", "viewer"), "pumps")).body).toMatchObject({
      digest: body.digest,
    });
  });

  it("send no SYNC RESOURCE to an agent that reports the set's digest already", async () => {
    const { api, store, hotState } = await assetFleet();
    const labels = await store("labels.txt");
    const first = (
      await api.resourceSets.put(as("acme", "operator"), "pumps", { items: [{ assetId: labels }] })
    ).body as {
      digest: string;
    };
    for (const agentId of ["a-1", "a-2"]) {
      const state = hotState.agentStates.get(`acme/${agentId}`);
      if (state) state.resourceHash = first.digest;
    }
    const again = await api.resourceSets.put(as("acme", "operator"), "pumps", {
      items: [{ assetId: labels }],
    });
    expect(again.status).toBe(200);
    expect(
      (again.body as { operations: { agentId: string }[] }).operations.map((o) => o.agentId).sort(),
    ).toEqual(["a-3", "a-4"]);
  });

  it.each([
    ["an asset it does not have", () => ({ items: [{ assetId: "f".repeat(64) }] }), "not_found"],
    [
      "a path with a dot segment",
      (id: string) => ({ items: [{ assetId: id, path: "../etc" }] }),
      "invalid_request",
    ],
    ["a hidden folder", (id: string) => ({ items: [{ assetId: id, path: ".cache" }] }), "invalid_request"],
    ["an absolute path", (id: string) => ({ items: [{ assetId: id, path: "/etc" }] }), "invalid_request"],
    [
      "the same asset twice",
      (id: string) => ({ items: [{ assetId: id }, { assetId: id, path: "x" }] }),
      "invalid_request",
    ],
  ] as const)("refuse a set with %s, changing nothing", async (_, request, code) => {
    const { api, store, operations } = await assetFleet();
    const labels = await store("labels.txt");
    await expect(
      api.resourceSets.put(as("acme", "operator"), "pumps", request(labels)),
    ).rejects.toMatchObject({ code });
    await expect(api.resourceSets.get(as("acme"), "pumps")).rejects.toMatchObject({ code: "not_found" });
    expect(await operations.open("acme", "a-1")).toEqual([]);
  });

  it("keep an asset a set holds from deletion, naming the class, until the set drops it", async () => {
    const { api, store } = await assetFleet();
    const labels = await store("labels.txt");
    await api.resourceSets.put(as("acme", "operator"), "pumps", { items: [{ assetId: labels }] });
    await expect(api.assets.delete(as("acme", "operator"), labels)).rejects.toMatchObject({
      code: "asset_in_use",
      message: expect.stringContaining("pumps"),
    });
    await api.resourceSets.put(as("acme", "operator"), "pumps", { items: [] });
    expect((await api.assets.delete(as("acme", "operator"), labels)).body).toMatchObject({ assetId: labels });
  });

  it("queue, before an UPDATE CONFIGURATION of a flow naming assets, the SYNC RESOURCE it depends on", async () => {
    const { api, store, operations, hotState } = await assetFleet();
    const model = await store("model.onnx");
    const flow = JSON.stringify({
      rootGroup: {
        name: "pumps",
        processors: [
          {
            type: "org.apache.nifi.minifi.processors.GenerateFlowFile",
            properties: { Model: `@{asset-id:${model}}` },
          },
        ],
        controllerServices: [],
        processGroups: [],
      },
    });
    const flowHash = (await api.flows.upload(as("acme", "operator"), "pumps", text(flow))).body as {
      hash: string;
      assetIds: string[];
    };
    expect(flowHash.assetIds).toEqual([model]);
    const update = {
      operation: "UPDATE",
      operand: "CONFIGURATION",
      selector: { agentClass: "pumps" },
      flowHash: flowHash.hash,
    };
    await expect(api.operations.create(as("acme", "operator"), update)).rejects.toMatchObject({
      code: "flow_incompatible",
      message: expect.stringContaining(model),
    });
    const set = (await api.resourceSets.put(as("acme", "operator"), "pumps", { items: [{ assetId: model }] }))
      .body as {
      digest: string;
    };
    const state = hotState.agentStates.get("acme/a-4");
    if (state) state.resourceHash = set.digest;
    const created = (await api.operations.create(as("acme", "operator"), update)).body as {
      items: { agentId: string; operation: string; operationId: string; dependsOn?: string[] }[];
    };
    const updates = created.items.filter((item) => item.operation === "UPDATE");
    expect(updates).toHaveLength(4);
    // The set's own SYNC RESOURCE is still open for a-1..a-3: each update depends on it; a-4 holds the set.
    for (const agentId of ["a-1", "a-2", "a-3"]) {
      const [sync] = (await operations.open("acme", agentId)).filter((record) => record.operation === "SYNC");
      expect(updates.find((item) => item.agentId === agentId)?.dependsOn).toEqual([sync?.operationId]);
    }
    expect(updates.find((item) => item.agentId === "a-4")?.dependsOn).toBeUndefined();
    expect(created.items.filter((item) => item.operation === "SYNC")).toEqual([]);
    // Each names its agent's class, in whose fleet history it counts.
    const [first] = await operations.open("acme", "a-4");
    expect(first).toMatchObject({ operation: "UPDATE", agentClass: "pumps" });
  });

  it("send UPDATE ASSET with string args, and refuse it with the reason to an agent that would ignore it", async () => {
    const { api, store, operations } = await assetFleet();
    const model = await store("model.onnx");
    await api.operations.create(as("acme", "operator"), {
      operation: "UPDATE",
      operand: "ASSET",
      agentId: "a-1",
      assetId: model,
      args: { forceDownload: "true" },
    });
    expect((await operations.open("acme", "a-1"))[0]?.args).toEqual({
      file: "model.onnx",
      url: `${AGENT_API_URL}/c2/api/assets/${model}/content`,
      forceDownload: "true",
    });
    const java = await assetFleet({ agentType: "minifi-java", version: "2.11.0" });
    const javaModel = await java.store("model.onnx");
    await expect(
      java.api.operations.create(as("acme", "operator"), {
        operation: "UPDATE",
        operand: "ASSET",
        agentId: "a-1",
        assetId: javaModel,
      }),
    ).rejects.toMatchObject({
      code: "operation_not_supported",
      message: expect.stringMatching(/a-1 \(UPDATE ASSET: MiNiFi Java 2.11 and later refuse .* with a dot/),
    });
  });
});

/** A C++ component the manifests below list as an operand of START and STOP. */
const COMPONENT = "4fe2d51d-076a-49b0-88de-5cf5adf52b8f";
/** Every operation of the catalogue, as a C++ manifest lists them (in lower case). */
const catalogue = [
  { type: "describe", properties: { manifest: {}, metrics: {}, jstack: {}, corecomponentstate: {} } },
  { type: "clear", properties: { connection: {}, repositories: {}, corecomponentstate: {} } },
  { type: "start", properties: { c2: {}, processor: {}, [COMPONENT]: {} } },
  { type: "stop", properties: { c2: {}, processor: {}, [COMPONENT]: {} } },
  { type: "update", properties: { properties: {} } },
];

/** Agent a-1 of a binary of the agent type and version given, whose manifest lists the catalogue. */
function catalogueFleet(build: { agentType: string; version: string }) {
  const ports = harness();
  ports.agent("acme", "a-1", "pumps", 0, 0);
  (ports.registry.agents.get("acme/a-1") as AgentRecord).manifest = {
    hash: "hash-pumps",
    manifestId: "binary-pumps",
    supportedOperations: catalogue,
  };
  ports.manifests.add("acme", { ...storedJavaBinary(), manifestId: "binary-pumps", ...build }, "{}");
  const create = (request: Record<string, unknown>) =>
    ports.api.operations.create(as("acme", "operator"), { agentId: "a-1", ...request } as never);
  const argsSent = async () => (await ports.operations.open("acme", "a-1")).map((record) => record.args);
  return { ...ports, create, argsSent };
}

describe("the operations catalogue", () => {
  it("leave the agent marked when its heartbeat read its queue between the marker and the operation's write", async () => {
    const { create, operations, hotState } = catalogueFleet({ agentType: "cpp", version: "0.99.2" });
    const write = operations.create.bind(operations);
    // The agent's heartbeat comes in between: it finds the marker, reads an empty queue, and clears it.
    operations.create = async (...args) => {
      hotState.pendingOperations.delete("acme/a-1");
      return write(...args);
    };
    await create({ operation: "DESCRIBE", operand: "MANIFEST" });
    expect(hotState.pendingOperations.get("acme/a-1")).toBeGreaterThan(0);
  });

  it.each([
    { operation: "STOP", operand: "c2" },
    { operation: "START", operand: "C2" },
    { operation: "CLEAR", operand: "REPOSITORIES" },
  ])("send $operation $operand, which cannot be undone, only with confirm: true", async (kind) => {
    const { create, operations } = catalogueFleet({ agentType: "cpp", version: "0.99.2" });
    for (const confirm of [undefined, false]) {
      await expect(create({ ...kind, confirm })).rejects.toMatchObject({
        code: "confirmation_required",
        message: expect.stringMatching(/cannot be undone .*"confirm": true/),
      });
    }
    expect(await operations.open("acme", "a-1")).toEqual([]);
    const created = await create({ ...kind, confirm: true });
    expect(created.status).toBe(201);
    expect((await operations.open("acme", "a-1")).map((record) => record.operand)).toEqual([
      kind.operand.toUpperCase(),
    ]);
  });

  it("create C++ START and STOP of a component its manifest lists, and DESCRIBE METRICS with its class", async () => {
    const { create, operations } = catalogueFleet({ agentType: "cpp", version: "0.99.2" });
    expect((await create({ operation: "STOP", operand: COMPONENT })).status).toBe(201);
    expect(
      (await create({ operation: "DESCRIBE", operand: "METRICS", args: { metricsClass: "processor" } }))
        .status,
    ).toBe(201);
    await expect(create({ operation: "START", operand: "not-listed" })).rejects.toMatchObject({
      code: "operation_not_supported",
    });
    await expect(
      create({ operation: "DESCRIBE", operand: "JSTACK", args: { x: "y" } }),
    ).rejects.toMatchObject({
      code: "invalid_request",
    });
    expect(
      (await operations.open("acme", "a-1")).map((record) => [record.operation, record.operand, record.args]),
    ).toEqual([
      ["STOP", COMPONENT.toUpperCase(), undefined],
      ["DESCRIBE", "METRICS", { metricsClass: "processor" }],
    ]);
  });

  it("refuse to MiNiFi Java what only C++ takes, naming the agent and why, creating nothing", async () => {
    const { create, operations } = catalogueFleet({ agentType: "minifi-java", version: "2.11.0" });
    await expect(create({ operation: "DESCRIBE", operand: "METRICS" })).rejects.toMatchObject({
      code: "operation_not_supported",
      message: expect.stringMatching(
        /^The agent cannot take the operation: a-1 \(DESCRIBE METRICS: only MiNiFi C\+\+ takes DESCRIBE METRICS: MiNiFi Java drops the whole heartbeat reply/,
      ),
    });
    await expect(
      create({ operation: "CLEAR", operand: "REPOSITORIES", confirm: true }),
    ).rejects.toMatchObject({
      code: "operation_not_supported",
    });
    expect(await operations.open("acme", "a-1")).toEqual([]);
  });

  it("send START and STOP PROCESSOR with its processorId only, to MiNiFi Java 2.7 and later", async () => {
    const recent = catalogueFleet({ agentType: "minifi-java", version: "2.7.0" });
    await expect(recent.create({ operation: "START", operand: "PROCESSOR" })).rejects.toMatchObject({
      code: "invalid_request",
      message: "START PROCESSOR needs args",
    });
    await expect(
      recent.create({ operation: "START", operand: "PROCESSOR", args: { processorId: "p-1", other: "x" } }),
    ).rejects.toMatchObject({
      code: "invalid_request",
      message: "START PROCESSOR takes only the args processorId",
    });
    expect(
      (await recent.create({ operation: "STOP", operand: "PROCESSOR", args: { processorId: "p-1" } })).status,
    ).toBe(201);
    const old = catalogueFleet({ agentType: "minifi-java", version: "2.6.0" });
    await expect(
      old.create({ operation: "STOP", operand: "PROCESSOR", args: { processorId: "p-1" } }),
    ).rejects.toMatchObject({
      code: "operation_not_supported",
      message: expect.stringMatching(/a-1 .*from 2.7 on/),
    });
  });
});

describe("args", () => {
  const properties = (args: Record<string, unknown>) => ({
    operation: "UPDATE",
    operand: "PROPERTIES",
    args,
  });

  it("go out as strings, whatever scalar the caller sent", async () => {
    const { create, argsSent } = catalogueFleet({ agentType: "minifi-java", version: "2.11.0" });
    await create(properties({ "c2.agent.heartbeat.period": 30000, "c2.rest.gzip": true, name: "x" }));
    expect(await argsSent()).toEqual([
      { "c2.agent.heartbeat.period": "30000", "c2.rest.gzip": "true", name: "x" },
    ]);
  });

  it("keep MiNiFi C++ UPDATE PROPERTIES' object form, refused to Java and to any other operation", async () => {
    const cpp = catalogueFleet({ agentType: "cpp", version: "0.99.2" });
    await cpp.create(properties({ "nifi.log.level": { value: "DEBUG", persist: true }, other: 1 }));
    expect(await cpp.argsSent()).toEqual([
      { "nifi.log.level": { value: "DEBUG", persist: true }, other: "1" },
    ]);
    await expect(
      cpp.create({ operation: "CLEAR", operand: "CONNECTION", args: { c: { value: "x" } } }),
    ).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(/CLEAR CONNECTION takes strings/),
    });
    const java = catalogueFleet({ agentType: "minifi-java", version: "2.11.0" });
    await expect(java.create(properties({ "c2.rest.gzip": { value: "true" } }))).rejects.toMatchObject({
      code: "operation_not_supported",
      message: expect.stringMatching(
        /a-1 \(UPDATE PROPERTIES: only MiNiFi C\+\+ takes UPDATE PROPERTIES values as objects/,
      ),
    });
    expect(await java.argsSent()).toEqual([]);
  });
});

describe("an operation's result", () => {
  /** A DESCRIBE CONFIGURATION of agent a-1 whose acknowledgement's answer the agent API kept. */
  async function answered() {
    const h = harness();
    const operationId = newOperationId(h.now, h.ids, "a-1");
    const answer = '{"configuration_options":{"nifi.c2.agent.class":"pumps"}}';
    const bytes = new TextEncoder().encode(answer);
    await h.operations.create([
      {
        tenant: "acme",
        agentId: "a-1",
        operationId,
        operation: "DESCRIBE",
        operand: "CONFIGURATION",
        state: "done",
        createdAt: h.now,
        createdBy: "acme-user",
        result: { bytes: bytes.length, storedAt: h.now, expiresAt: h.now + 60_000 },
      },
    ]);
    await h.operationResults.put("acme", operationId, bytes);
    return { ...h, operationId, answer };
  }

  it("is served to operators and admins as kept, its size on the operation; viewers may see only that there is one", async () => {
    const { api, operationId, answer } = await answered();
    for (const role of ["operator", "admin"] as const)
      expect(await api.operations.result(as("acme", role), operationId)).toEqual({
        body: answer,
        contentType: "application/json",
      });
    await expect(api.operations.result(as("acme", "viewer"), operationId)).rejects.toMatchObject({
      code: "forbidden",
    });
    expect((await api.operations.get(as("acme", "viewer"), operationId)).body).toMatchObject({
      result: { bytes: answer.length, expiresAt: expect.any(String) },
    });
  });

  it("is not found for another tenant, nor for an operation without one or whose result was lost", async () => {
    const { api, operations, operationId, now, ids } = await answered();
    await expect(api.operations.result(as("other"), operationId)).rejects.toMatchObject({
      code: "not_found",
    });
    const lost = newOperationId(now + 1, ids, "a-1");
    await operations.create([
      {
        tenant: "acme",
        agentId: "a-1",
        operationId: lost,
        operation: "DESCRIBE",
        operand: "JSTACK",
        state: "done",
        createdAt: now,
        createdBy: "acme-user",
        resultLost: true,
      },
    ]);
    await expect(api.operations.result(as("acme"), lost)).rejects.toMatchObject({
      code: "not_found",
      message: "The operation's result could not be kept",
    });
    expect((await api.operations.get(as("acme"), lost)).body).toMatchObject({ resultLost: true });
  });

  it("is gone once it expires, and when the bucket no longer holds it", async () => {
    const { api, operationResults, operationId } = await answered();
    operationResults.objects.clear();
    await expect(api.operations.result(as("acme"), operationId)).rejects.toMatchObject({
      code: "result_expired",
    });
    const again = await answered();
    again.clock.advance(60_000);
    await expect(again.api.operations.result(as("acme"), again.operationId)).rejects.toMatchObject({
      code: "result_expired",
    });
  });
});

describe("TRANSFER DEBUG and its debug bundles", () => {
  const transferFleet = () => {
    const fleet = catalogueFleet({ agentType: "minifi-java", version: "2.3.0" });
    const agent = fleet.registry.agents.get("acme/a-1") as AgentRecord;
    (agent.manifest as { supportedOperations: unknown[] }).supportedOperations = [
      ...catalogue,
      { type: "transfer", properties: { debug: {} } },
    ];
    return fleet;
  };

  it("sends the agent the upload target of its own operation, below the bundle intake's base, and takes no args", async () => {
    const { create, operations } = transferFleet();
    await expect(
      create({ operation: "TRANSFER", operand: "DEBUG", args: { target: "https://elsewhere" } }),
    ).rejects.toMatchObject({ code: "invalid_request", message: "TRANSFER DEBUG takes no args" });
    const created = await create({ operation: "transfer", operand: "debug" });
    const [record] = await operations.open("acme", "a-1");
    expect(created.status).toBe(201);
    expect(record).toMatchObject({ operation: "TRANSFER", operand: "DEBUG" });
    expect(record?.args).toEqual({
      target: `${BUNDLE_TARGET_BASE}/c2/debug-bundles/${encodeURIComponent(record?.operationId as string)}`,
    });
  });

  it("is refused to an agent whose manifest does not list it", async () => {
    const { create } = catalogueFleet({ agentType: "cpp", version: "0.99.2" });
    await expect(create({ operation: "TRANSFER", operand: "DEBUG" })).rejects.toMatchObject({
      code: "operation_not_supported",
    });
  });

  /** Two bundles of tenant acme, the older expiring first, and one of another tenant. */
  async function stored() {
    const h = harness();
    const bundleOf = (tenant: string, operationId: string, storedAt: number, days: number) => ({
      tenant,
      agentId: "a-1",
      operationId,
      uploadId: `u-${operationId}`,
      bytes: 100,
      storedAt,
      expiresAt: storedAt + days * 86_400_000,
    });
    const older = newOperationId(h.now, h.ids, "a-1");
    const newer = newOperationId(h.now + 1, h.ids, "a-1");
    await h.debugBundles.create(bundleOf("acme", older, h.now, 1));
    await h.debugBundles.create(bundleOf("acme", newer, h.now + 1, 2));
    await h.debugBundles.create(bundleOf("other", newOperationId(h.now + 2, h.ids, "b-1"), h.now, 1));
    return { ...h, older, newer };
  }

  it("are listed newest first to viewers, paged, until they expire; another tenant's are not there", async () => {
    const { api, clock, older, newer } = await stored();
    const ids = async (limit?: number, cursor?: string) => {
      const { body } = await api.debugBundles.list(as("acme", "viewer"), { limit, cursor });
      return body as { items: { operationId: string }[]; nextCursor?: string };
    };
    expect((await ids()).items.map((item) => item.operationId)).toEqual([newer, older]);
    const first = await ids(1);
    expect(first.items.map((item) => item.operationId)).toEqual([newer]);
    expect((await ids(1, first.nextCursor)).items.map((item) => item.operationId)).toEqual([older]);
    expect((await api.debugBundles.get(as("acme", "viewer"), older)).body).toEqual({
      operationId: older,
      agentId: "a-1",
      bytes: 100,
      storedAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    clock.advance(86_400_000);
    expect((await ids()).items.map((item) => item.operationId)).toEqual([newer]);
    await expect(api.debugBundles.get(as("acme"), older)).rejects.toMatchObject({ code: "result_expired" });
    await expect(api.debugBundles.get(as("other"), newer)).rejects.toMatchObject({ code: "not_found" });
  });

  it("are downloaded by operators and admins through a short-lived link; viewers may not", async () => {
    const { api, clock, older } = await stored();
    for (const role of ["operator", "admin"] as const)
      expect(await api.debugBundles.download(as("acme", role), older)).toMatchObject({
        status: 302,
        location: expect.stringMatching(/^memory:\/\/acme\/.*name=debug-op-.*\.tar\.gz&expires=300$/),
      });
    // A web page cannot read a redirect: it asks for the link in the body.
    expect(await api.debugBundles.download(as("acme", "operator"), older, { redirect: false })).toEqual({
      body: { location: expect.stringMatching(/^memory:\/\/acme\/.*name=debug-op-.*\.tar\.gz&expires=300$/) },
    });
    await expect(api.debugBundles.download(as("acme", "viewer"), older)).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(api.debugBundles.download(as("other", "admin"), older)).rejects.toMatchObject({
      code: "not_found",
    });
    clock.advance(86_400_000);
    await expect(api.debugBundles.download(as("acme"), older)).rejects.toMatchObject({
      code: "result_expired",
    });
  });
});

describe("operations for agents outside their class's maintenance windows", () => {
  /** The harness's clock is a Saturday; pumps' window opens on Sunday at 02:00 in Berlin, 01:00 UTC. */
  const opening = Date.parse("2026-11-22T01:00:00Z");

  /** Agent a-1 of class pumps, whose window is closed, and v-1 of class valves, which has none. */
  async function windowedFleet() {
    const ports = harness();
    ports.agent("acme", "a-1", "pumps", 0, 0);
    ports.agent("acme", "v-1", "valves", 0, 0);
    await ports.api.settings.put(as("acme"), { timeZone: "europe/berlin" });
    await ports.api.classes.put(as("acme", "operator"), "pumps", {
      maintenanceWindows: [{ days: ["sun"], start: "02:00", durationMinutes: 240 }],
    });
    const describe = (agentId: string, outsideWindow?: "wait" | "refuse") =>
      ports.api.operations.create(as("acme", "operator"), {
        agentId,
        operation: "DESCRIBE",
        operand: "MANIFEST",
        outsideWindow,
      });
    return { ...ports, describe };
  }

  it("wait by default: held until the window opens, the agent not told of it before", async () => {
    const { describe, hotState, operations } = await windowedFleet();
    const created = (await describe("a-1")).body as Body;
    expect(created.items).toEqual([
      expect.objectContaining({
        agentId: "a-1",
        state: "queued",
        notBefore: new Date(opening).toISOString(),
      }),
    ]);
    expect(created).not.toHaveProperty("refused");
    expect(hotState.pendingOperations.has("acme/a-1")).toBe(false);
    expect((await operations.open("acme", "a-1"))[0]).toMatchObject({ notBefore: opening, dueAt: opening });

    const open = (await describe("v-1")).body as Body;
    expect(open.items[0]).not.toHaveProperty("notBefore");
    expect(hotState.pendingOperations.get("acme/v-1")).toBeGreaterThan(0);
  });

  it("are refused with 409 and the reason when the request says so, creating nothing; inside a window they go", async () => {
    const { api, describe, operations, hotState } = await windowedFleet();
    await expect(describe("a-1", "refuse")).rejects.toMatchObject({
      code: "outside_window",
      message: expect.stringContaining("class pumps are closed until 2026-11-22T01:00:00.000Z"),
    });
    const bySelector = api.operations.create(as("acme", "operator"), {
      selector: { agentClass: "pumps" },
      operation: "DESCRIBE",
      operand: "MANIFEST",
      outsideWindow: "refuse",
    });
    await expect(bySelector).rejects.toMatchObject({ code: "outside_window" });
    expect(await operations.open("acme", "a-1")).toEqual([]);

    // Saturday from 01:00 to 02:00 in Berlin: open at the harness's midnight UTC.
    await api.classes.put(as("acme", "operator"), "pumps", {
      maintenanceWindows: [{ days: ["sat"], start: "00:30", durationMinutes: 60 }],
    });
    const inside = (await describe("a-1", "refuse")).body as Body;
    expect(inside.items[0]).not.toHaveProperty("notBefore");
    expect(hotState.pendingOperations.get("acme/a-1")).toBeGreaterThan(0);
    expect((await describe("v-1", "refuse")).status).toBe(201);
  });

  it("are a group's settings: shown on its read, checked as a class's, unset by a definition without them", async () => {
    const { api } = harness();
    const night = [{ days: ["sat" as const, "sat" as const], start: "22:00", durationMinutes: 60 }];
    await api.groups.create(as("acme", "operator"), {
      name: "night",
      query: {},
      requireApproval: true,
      maintenanceWindows: night,
    });
    expect((await api.groups.get(as("acme", "viewer"), "night")).body).toMatchObject({
      requireApproval: true,
      maintenanceWindows: [{ days: ["sat"], start: "22:00", durationMinutes: 60 }],
    });
    await expect(
      api.groups.put(as("acme", "operator"), "night", {
        query: {},
        maintenanceWindows: [{ days: ["sat"], start: "25:00", durationMinutes: 60 }],
      }),
    ).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("maintenanceWindows"),
    });
    expect((await api.groups.put(as("acme", "operator"), "night", { query: {} })).body).toMatchObject({
      requireApproval: false,
      maintenanceWindows: [],
    });
  });

  it("wait for the windows of the agent's groups too, opening when all are open together", async () => {
    const { api, agent, registry, describe } = await windowedFleet();
    agent("acme", "a-2", "pumps", 0, 0);
    await registry.putLabels("acme", "a-1", { shift: "late" });
    // Sundays from 05:00 Berlin (04:00 UTC): inside pumps' window, which closes at 06:00 Berlin.
    await api.groups.create(as("acme", "operator"), {
      name: "late-shift",
      query: { labels: ["shift=late"] },
      maintenanceWindows: [{ days: ["sun"], start: "05:00", durationMinutes: 120 }],
    });
    // Valves' agents, whose class has no windows: Sundays from 03:00 Berlin (02:00 UTC).
    await api.groups.create(as("acme", "operator"), {
      name: "valves",
      query: { classes: ["valves"] },
      maintenanceWindows: [{ days: ["sun"], start: "03:00", durationMinutes: 60 }],
    });
    const notBeforeOf = async (agentId: string) =>
      ((await describe(agentId)).body as Body).items[0]?.notBefore;
    expect(await notBeforeOf("a-1")).toBe("2026-11-22T04:00:00.000Z");
    expect(await notBeforeOf("a-2")).toBe(new Date(opening).toISOString());
    expect(await notBeforeOf("v-1")).toBe("2026-11-22T02:00:00.000Z");
    await expect(describe("a-1", "refuse")).rejects.toMatchObject({
      code: "outside_window",
      message: expect.stringContaining(
        "class pumps and group late-shift are closed until 2026-11-22T04:00:00.000Z",
      ),
    });

    // Windows that never meet: refused even when the request would wait.
    await api.groups.put(as("acme", "operator"), "late-shift", {
      query: { labels: ["shift=late"] },
      maintenanceWindows: [{ days: ["mon"], start: "05:00", durationMinutes: 60 }],
    });
    await expect(describe("a-1")).rejects.toMatchObject({
      code: "outside_window",
      message: expect.stringContaining("class pumps and group late-shift are never open together"),
    });
    // A group without windows adds none.
    await api.groups.put(as("acme", "operator"), "late-shift", { query: { labels: ["shift=late"] } });
    expect(await notBeforeOf("a-1")).toBe(new Date(opening).toISOString());
  });

  it("follow a change of the class's or a group's windows once held: released, moved or cancelled", async () => {
    const { api, clock, describe, operations, registry } = await windowedFleet();
    const held = async (agentId: string) => (await operations.open("acme", agentId))[0];
    await describe("a-1");
    await describe("v-1");
    const pumps = (
      maintenanceWindows: { days: "sat"[] | "sun"[]; start: string; durationMinutes: number }[],
    ) => api.classes.put(as("acme", "operator"), "pumps", { maintenanceWindows });

    // Moved later: held until the new opening, due for the sweeper's release then and not before.
    await pumps([{ days: ["sun"], start: "06:00", durationMinutes: 60 }]);
    expect(await held("a-1")).toMatchObject({ notBefore: opening + 4 * HOUR, dueAt: opening + 4 * HOUR });

    // Open now (Saturday 01:00 to 02:00 in Berlin): released at the change, its queued time counted from it.
    clock.advance(MINUTE);
    await pumps([{ days: ["sat"], start: "00:30", durationMinutes: 60 }]);
    const now = clock.now();
    expect(await held("a-1")).toMatchObject({ state: "queued", notBefore: now, dueAt: now });

    // Released already, it stays so; another change reaches only what is still held.
    await pumps([{ days: ["sun"], start: "02:00", durationMinutes: 240 }]);
    expect(await held("a-1")).toMatchObject({ notBefore: now });
    await describe("a-1");
    await registry.putLabels("acme", "a-1", { shift: "late" });
    const lateShift = (days: ("sun" | "mon")[]) =>
      api.groups.put(as("acme", "operator"), "late-shift", {
        query: { labels: ["shift=late"] },
        maintenanceWindows: [{ days, start: "05:00", durationMinutes: 120 }],
      });
    await api.groups.create(as("acme", "operator"), {
      name: "late-shift",
      query: { labels: ["shift=late"] },
      maintenanceWindows: [{ days: ["sun"], start: "05:00", durationMinutes: 120 }],
    });
    const [released, waiting] = await operations.open("acme", "a-1");
    expect(released).toMatchObject({ notBefore: now });
    expect(waiting).toMatchObject({ notBefore: opening + 3 * HOUR, dueAt: opening + 3 * HOUR });

    // The group's windows never meet the class's now: cancelled, saying why.
    await lateShift(["mon"]);
    expect((await operations.get("acme", "a-1", waiting?.operationId as string))?.state).toBe("cancelled");
    expect(await operations.get("acme", "a-1", waiting?.operationId as string)).toMatchObject({
      reason: expect.stringContaining("class pumps and group late-shift are never open together"),
    });
    // The agent of a class without windows held nothing: left as it was.
    expect(await held("v-1")).not.toHaveProperty("notBefore");
  });

  it("follow a change of the tenant's time zone once held: the windows open at another instant", async () => {
    const { api, describe, operations } = await windowedFleet();
    await describe("a-1");
    // Sunday 02:00 in UTC is an hour after Sunday 02:00 in Berlin.
    await api.settings.put(as("acme"), { timeZone: "UTC" });
    expect((await operations.open("acme", "a-1"))[0]).toMatchObject({
      notBefore: opening + HOUR,
      dueAt: opening + HOUR,
    });
  });

  it("know the tenant's time zone by Intl's name, and refuse one it does not know", async () => {
    const { api } = await windowedFleet();
    expect((await api.settings.get(as("acme", "viewer"))).body).toMatchObject({ timeZone: "Europe/Berlin" });
    await expect(api.settings.put(as("acme"), { timeZone: "Mars/Olympus_Mons" })).rejects.toMatchObject({
      code: "invalid_request",
    });
    expect((await api.settings.put(as("acme"), { timeZone: null })).body).not.toHaveProperty("timeZone");
  });
});

describe("a group's parameter values", () => {
  /** Agents a-1 (site north, tier gold), a-2 (site north) and a-3 of class pumps, each in the cache. */
  async function groupedFleet() {
    const ports = harness();
    for (const agentId of ["a-1", "a-2", "a-3"]) ports.agent("acme", agentId, "pumps", 0, 0);
    const operator = as("acme", "operator");
    await ports.api.agents.label(operator, "a-1", { set: { site: "north", tier: "gold" } });
    await ports.api.agents.label(operator, "a-2", { set: { site: "north" } });
    await ports.api.groups.create(operator, { name: "north", query: { labels: ["site=north"] } });
    await ports.api.groups.create(operator, { name: "gold", query: { labels: ["tier=gold"] } });
    const told = (agentId: string) =>
      Object.fromEntries(ports.hotState.ownValues.get(`acme/${agentId}`) ?? new Map());
    return { ...ports, operator, told };
  }

  it("tell every member its values over its class, the higher priority's over the lower's", async () => {
    const { api, operator, told } = await groupedFleet();
    const values = api.parameters.groupValues;
    expect((await values.put(operator, "north", "broker", { value: "north" })).status).toBe(201);
    await values.put(operator, "gold", "broker", { value: "gold" });
    // Equal priorities: the name sorting last, north, wins.
    expect(told("a-1")).toEqual({ broker: { value: "north" } });
    expect(told("a-2")).toEqual({ broker: { value: "north" } });
    expect(told("a-3")).toEqual({});
    await api.groups.put(operator, "gold", { query: { labels: ["tier=gold"] }, parameterPriority: 5 });
    expect(told("a-1")).toEqual({ broker: { value: "gold" } });
    expect((await api.groups.get(operator, "gold")).body).toMatchObject({
      parameterPriority: 5,
      parameterNames: ["broker"],
    });
    await api.parameters.agentValues.put(operator, "a-1", "broker", { value: "own" });
    expect(told("a-1")).toEqual({ broker: { value: "own" } });
    const listed = (await api.parameters.agentValues.list(operator, "a-2")).body as Body;
    expect(listed.items).toEqual([
      { name: "broker", declared: false, layer: "group", group: "north", value: "north" },
    ]);

    // A label moves a-3 in; deleting the group takes its values from its members.
    await api.agents.label(operator, "a-3", { set: { site: "north" } });
    expect(told("a-3")).toEqual({ broker: { value: "north" } });
    await api.groups.delete(operator, "north");
    expect(told("a-2")).toEqual({});
    expect(told("a-3")).toEqual({});
    expect(told("a-1")).toEqual({ broker: { value: "own" } });
    await expect(values.list(operator, "north")).rejects.toMatchObject({ code: "not_found" });
  });

  it("have agents registering read the groups again after each change of a group holding values, and only then", async () => {
    const { api, operator, hotState } = await groupedFleet();
    let seen = 0;
    const changedSince = () => {
      const changes = hotState.groupsChanges.get("acme") ?? 0;
      const changed = changes > seen;
      seen = changes;
      return changed;
    };
    await api.groups.put(operator, "gold", { query: { labels: ["tier=gold"] }, parameterPriority: 1 });
    expect(changedSince()).toBe(false);
    await api.parameters.groupValues.put(operator, "north", "broker", { value: "north" });
    expect(changedSince()).toBe(true);
    await api.groups.put(operator, "north", { query: { labels: ["site=north"] }, parameterPriority: 2 });
    expect(changedSince()).toBe(true);
    await api.groups.delete(operator, "gold");
    expect(changedSince()).toBe(false);
    await api.parameters.groupValues.remove(operator, "north", "broker");
    expect(changedSince()).toBe(true);
    await api.parameters.groupValues.put(operator, "north", "broker", { value: "north" });
    expect(changedSince()).toBe(true);
    await api.groups.delete(operator, "north");
    expect(changedSince()).toBe(true);
  });

  it("are held only by a group selecting on what agents are", async () => {
    const { api, operator } = await groupedFleet();
    await api.groups.create(operator, { name: "silent", query: { silentForMinutes: 10 } });
    await expect(
      api.parameters.groupValues.put(operator, "silent", "broker", { value: "x" }),
    ).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("silentForMinutes"),
    });
    await api.parameters.groupValues.put(operator, "north", "broker", { value: "north" });
    await expect(
      api.groups.put(operator, "north", { query: { labels: ["site=north"], status: "online" } }),
    ).rejects.toMatchObject({ code: "invalid_request" });
    await expect(
      api.groups.put(operator, "north", { query: { labels: ["site=north"] }, parameterPriority: 1.5 }),
    ).rejects.toMatchObject({ code: "invalid_request" });
    await expect(
      api.parameters.groupValues.put(as("acme", "viewer"), "north", "broker", { value: "x" }),
    ).rejects.toMatchObject({ code: "forbidden" });
  });
});

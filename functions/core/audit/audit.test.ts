import { describe, expect, it } from "vitest";
import { MemoryAuditLog } from "../../adapters/memory/audit-log.js";
import type { Principal } from "../identity/principal.js";
import { encodeCursor, timeOrderedKey } from "../paging.js";
import { makeAuditApi } from "./console-audit.js";
import { isAudited } from "./model.js";
import { AUDIT_SUMMARIES, summaryOf } from "./summaries.js";
import { type AuditedRequest, auditRecordOf, recordAudit } from "./trail.js";

const AT = Date.UTC(2026, 10, 21, 9, 30);
const admin: Principal = { tenant: "acme", role: "admin", subject: "alice" };

const request = (changes: Partial<AuditedRequest> = {}): AuditedRequest => ({
  principal: { tenant: "acme", role: "operator", subject: "bob" },
  operation: { operationId: "putClass", method: "PUT", path: "/api/v1/classes/{className}" },
  pathParameters: { className: "pumps" },
  exchange: {
    query: {},
    body: { description: "Pumps", heartbeatIntervalSeconds: 30 },
    answer: { name: "pumps" },
  },
  status: 201,
  requestId: "req-1",
  at: AT,
  sourceIp: "203.0.113.7",
  userAgent: "Mozilla/5.0",
  ...changes,
});

describe("an audit record", () => {
  it("names who, in which tenant, what on what, how it was answered, when and from where", () => {
    expect(auditRecordOf(request())).toEqual({
      tenant: "acme",
      at: AT,
      requestId: "req-1",
      actor: { subject: "bob", role: "operator" },
      operationId: "putClass",
      method: "PUT",
      route: "/api/v1/classes/{className}",
      target: { className: "pumps" },
      status: 201,
      sourceIp: "203.0.113.7",
      userAgent: "Mozilla/5.0",
      summary: { description: "Pumps", heartbeatIntervalSeconds: 30 },
    });
  });

  it("names the classes the actor's token limited its role to", () => {
    const principal: Principal = { tenant: "acme", role: "operator", subject: "bob", classes: ["pumps"] };
    expect(auditRecordOf(request({ principal })).actor).toEqual({
      subject: "bob",
      role: "operator",
      classes: ["pumps"],
    });
  });

  it("of a request refused before it was parsed keeps its target and error, and no summary", () => {
    const record = auditRecordOf(
      request({
        exchange: undefined,
        status: 403,
        errorCode: "forbidden",
        sourceIp: "",
        userAgent: undefined,
      }),
    );
    expect(record).toMatchObject({ status: 403, errorCode: "forbidden", target: { className: "pumps" } });
    expect(record).not.toHaveProperty("summary");
    expect(record).not.toHaveProperty("sourceIp");
    expect(record).not.toHaveProperty("userAgent");
  });

  it("bounds what the caller chose the length of", () => {
    const record = auditRecordOf(
      request({ pathParameters: { className: "x".repeat(5_000) }, userAgent: "y".repeat(5_000) }),
    );
    expect(record.target.className).toHaveLength(512);
    expect(record.userAgent).toHaveLength(512);
  });

  it("is kept for every method but GET, and for reads of what agents disclosed", () => {
    expect(
      ["PUT", "POST", "DELETE", "PATCH"].map((method) => isAudited({ method, operationId: "putClass" })),
    ).toEqual([true, true, true, true]);
    expect(isAudited({ method: "GET", operationId: "listAgents" })).toBe(false);
    expect(isAudited({ method: "GET", operationId: "getOperationResult" })).toBe(true);
  });
});

describe("the audit allow-list", () => {
  const secrets = [
    "PRIVATE KEY",
    "CERTIFICATE REQUEST",
    "secret-arg",
    "<flow>",
    "asset-bytes",
    "whsec_",
    "token-in-path",
    "plaintext-parameter",
  ];
  const exchanges: Record<string, Parameters<typeof summaryOf>[1]> = {
    issueCertificate: {
      query: {},
      body: { kind: "agent", agentId: "pump-7", csrPem: "-----BEGIN CERTIFICATE REQUEST-----" },
      answer: { serial: "0A1B", certificatePem: "cert", privateKeyPem: "-----BEGIN PRIVATE KEY-----" },
    },
    createOperation: {
      query: {},
      body: {
        operation: "UPDATE",
        operand: "PROPERTIES",
        agentId: "pump-7",
        args: { password: "secret-arg" },
      },
      answer: { items: [{ operationId: "op-1" }, { operationId: "op-2" }] },
    },
    uploadFlow: {
      query: {},
      body: new TextEncoder().encode("<flow>"),
      answer: { hash: "f".repeat(64), format: "json", sizeBytes: 6 },
    },
    labelFlow: {
      query: {},
      body: { label: "kafka tls" },
      answer: { hash: "f".repeat(64), version: 7, label: "kafka tls", processorTypes: ["secret-processor"] },
    },
    uploadAsset: {
      query: { name: "model.bin" },
      body: new TextEncoder().encode("asset-bytes"),
      answer: { assetId: "a".repeat(64), sizeBytes: 11, name: "model.bin" },
    },
    startRollout: {
      query: {},
      body: { className: "pumps", flowHash: "f".repeat(64) },
      answer: {
        rolloutId: "r-1",
        toFlow: "f".repeat(64),
        fromFlow: "e".repeat(64),
        plan: { batchSize: 100 },
        counts: {},
      },
    },
    approveRollout: {
      query: {},
      answer: { rolloutId: "r-1", state: "canary", approvedBy: "alice", createdBy: "ops", counts: {} },
    },
    refuseRollout: {
      query: {},
      body: { reason: "Not during the audit" },
      answer: { rolloutId: "r-1", state: "refused", refusedBy: "ops", createdBy: "ops", counts: {} },
    },
    adoptFlow: {
      query: {},
      body: { flowId: "incumbent-flow-1" },
      answer: { adoptionId: "op-9~pump-7", agentId: "pump-7", state: "requested" },
    },
    putResourceSet: {
      query: {},
      body: { items: [{ assetId: "a".repeat(64), path: "models" }] },
      answer: { digest: "d" },
    },
    createSubscription: {
      query: {},
      body: {
        url: "https://hooks.example.com:8443/services/token-in-path?key=token-in-path",
        eventTypes: ["agent.*"],
      },
      answer: {
        subscriptionId: "wh-1",
        secret: "whsec_abc",
        url: "https://hooks.example.com:8443/services/token-in-path",
      },
    },
    putClassParameter: { query: {}, body: { value: "plaintext-parameter" }, answer: { name: "site" } },
    putGroupParameter: {
      query: {},
      body: { value: "plaintext-parameter" },
      answer: { name: "site", value: "plaintext-parameter" },
    },
    putAgentParameter: {
      query: {},
      body: { secretRef: "ssm:/plant/kafka/password" },
      answer: { name: "kafka.password", secretRef: "ssm:/plant/kafka/password" },
    },
    createGroup: {
      query: {},
      body: { name: "kafka-publishers", query: { classes: ["pumps"] } },
      answer: { name: "kafka-publishers", createdAt: "2026-11-29T12:00:00.000Z" },
    },
    putGroup: {
      query: {},
      body: { description: "plant 7", query: { labels: ["site=plant-7"] } },
      answer: { name: "kafka-publishers", updatedAt: "2026-11-29T12:00:00.000Z" },
    },
    putSettings: {
      query: {},
      body: { cleanUpAfterDays: null },
      answer: { updatedAt: "2026-11-29T12:00:00.000Z" },
    },
    testSubscription: {
      query: {},
      answer: { notificationId: "n-1", delivered: false, status: 503, durationMs: 12 },
    },
    labelAgent: {
      query: {},
      body: { set: { site: "plant-7" }, remove: ["rack"] },
      answer: { agentId: "pump-7", labels: { site: "plant-7", zone: "north" } },
    },
    labelAgents: {
      query: {},
      body: { selector: { class: "pumps", labels: ["site=plant-7"] }, set: { zone: "north" } },
      answer: { matched: 120, changed: 118, refused: 1, refusedAgents: ["pump-9"] },
    },
  };

  it("keeps the settings, names and created ids an operator reviews", () => {
    expect(summaryOf("issueCertificate", exchanges.issueCertificate as never)).toEqual({
      kind: "agent",
      agentId: "pump-7",
      key: "from-csr",
      serial: "0A1B",
    });
    expect(summaryOf("createOperation", exchanges.createOperation as never)).toEqual({
      operation: "UPDATE",
      operand: "PROPERTIES",
      agentId: "pump-7",
      created: 2,
    });
    expect(summaryOf("startRollout", exchanges.startRollout as never)).toEqual({
      className: "pumps",
      flowHash: "f".repeat(64),
      rolloutId: "r-1",
      fromFlow: "e".repeat(64),
      toFlow: "f".repeat(64),
      plan: { batchSize: 100 },
    });
    expect(summaryOf("approveRollout", exchanges.approveRollout as never)).toEqual({
      state: "canary",
      approvedBy: "alice",
    });
    expect(summaryOf("refuseRollout", exchanges.refuseRollout as never)).toEqual({
      reason: "Not during the audit",
      state: "refused",
    });
    expect(summaryOf("adoptFlow", exchanges.adoptFlow as never)).toEqual({
      flowId: "incumbent-flow-1",
      adoptionId: "op-9~pump-7",
      agentId: "pump-7",
    });
    expect(summaryOf("putResourceSet", exchanges.putResourceSet as never)).toEqual({
      assetIds: ["a".repeat(64)],
      digest: "d",
    });
    expect(summaryOf("createSubscription", exchanges.createSubscription as never)).toEqual({
      origin: "https://hooks.example.com:8443",
      eventTypes: ["agent.*"],
      subscriptionId: "wh-1",
    });
    expect(summaryOf("putClassParameter", exchanges.putClassParameter as never)).toEqual({ kind: "value" });
    expect(summaryOf("putAgentParameter", exchanges.putAgentParameter as never)).toEqual({
      kind: "secretRef",
      secretRef: "ssm:/plant/kafka/password",
    });
    expect(summaryOf("createGroup", exchanges.createGroup as never)).toEqual({
      name: "kafka-publishers",
      query: { classes: ["pumps"] },
    });
    expect(summaryOf("putGroup", exchanges.putGroup as never)).toEqual({
      description: "plant 7",
      query: { labels: ["site=plant-7"] },
    });
    // An unset default is kept as the null that unset it.
    expect(summaryOf("putSettings", exchanges.putSettings as never)).toEqual({ cleanUpAfterDays: null });
    expect(summaryOf("testSubscription", exchanges.testSubscription as never)).toEqual({
      delivered: false,
      status: 503,
    });
    expect(summaryOf("labelFlow", exchanges.labelFlow as never)).toEqual({
      hash: "f".repeat(64),
      version: 7,
      label: "kafka tls",
    });
    expect(summaryOf("labelAgent", exchanges.labelAgent as never)).toEqual({
      set: { site: "plant-7" },
      remove: ["rack"],
    });
    expect(summaryOf("labelAgents", exchanges.labelAgents as never)).toEqual({
      selector: { class: "pumps", labels: ["site=plant-7"] },
      set: { zone: "north" },
      matched: 120,
      changed: 118,
      refused: 1,
    });
  });

  it("never keeps a key, a signing request, an operation's arguments, or flow or asset content", () => {
    for (const [operationId, exchange] of Object.entries(exchanges)) {
      const kept = JSON.stringify(summaryOf(operationId, exchange));
      for (const secret of secrets) expect(kept, operationId).not.toContain(secret);
    }
    expect(Object.keys(exchanges).sort()).toEqual(
      Object.keys(AUDIT_SUMMARIES)
        .filter((id) => id !== "putClass")
        .sort(),
    );
  });

  it("keeps nothing of an operation it does not list", () => {
    expect(
      summaryOf("revokeCertificate", { query: {}, body: { reason: "x" }, answer: { serial: "1" } }),
    ).toBeUndefined();
  });
});

describe("recording a request", () => {
  it("writes one record for each request, whatever its answer", async () => {
    const log = new MemoryAuditLog();
    expect(await recordAudit(log, request())).toMatchObject({ written: "yes" });
    expect(
      await recordAudit(log, request({ requestId: "req-2", status: 409, errorCode: "conflict" })),
    ).toMatchObject({
      written: "yes",
    });
    expect([...(log.records.get("acme")?.keys() ?? [])]).toEqual([
      timeOrderedKey(AT, "req-1"),
      timeOrderedKey(AT, "req-2"),
    ]);
  });

  it("answers a record it could not write with the record, for the caller to report", async () => {
    const log = new MemoryAuditLog();
    log.failing = true;
    const outcome = await recordAudit(log, request());
    expect(outcome).toMatchObject({
      written: "no",
      record: { requestId: "req-1" },
      error: expect.any(Error),
    });
  });
});

describe("reading the audit trail", () => {
  async function trail() {
    const log = new MemoryAuditLog();
    for (let minute = 0; minute < 5; minute++) {
      await recordAudit(
        log,
        request({
          requestId: `req-${minute}`,
          at: AT + minute * 60_000,
          principal: { tenant: "acme", role: "admin", subject: minute % 2 === 0 ? "alice" : "bob" },
        }),
      );
    }
    await recordAudit(log, request({ principal: { tenant: "other", role: "admin", subject: "eve" } }));
    return makeAuditApi({ audit: log });
  }
  type Body = { items: { requestId: string; at: string; tenant?: string }[]; nextCursor?: string };
  const ids = (body: unknown) => (body as Body).items.map((item) => item.requestId);

  it("is for admins only", async () => {
    const api = await trail();
    await expect(api.list({ ...admin, role: "operator" }, {})).rejects.toMatchObject({ code: "forbidden" });
  });

  it("lists the caller's tenant's records newest first, times as ISO, without the tenant, by pages", async () => {
    const api = await trail();
    const first = (await api.list(admin, { limit: 3 })).body as Body;
    expect(ids(first)).toEqual(["req-4", "req-3", "req-2"]);
    expect(first.items[0]).not.toHaveProperty("tenant");
    expect(first.items[0]?.at).toBe(new Date(AT + 4 * 60_000).toISOString());
    const second = (await api.list(admin, { limit: 3, cursor: first.nextCursor })).body as Body;
    expect(ids(second)).toEqual(["req-1", "req-0"]);
    expect(second.nextCursor).toBeUndefined();
  });

  it("filters by time, actor and operation", async () => {
    const api = await trail();
    const range = { from: AT + 60_000, to: AT + 3 * 60_000 };
    expect(ids((await api.list(admin, range)).body)).toEqual(["req-2", "req-1"]);
    expect(ids((await api.list(admin, { actor: "bob" })).body)).toEqual(["req-3", "req-1"]);
    expect(ids((await api.list(admin, { operation: "deleteAsset" })).body)).toEqual([]);
  });

  it("refuses times that are not a range, and a cursor from another range or list", async () => {
    const api = await trail();
    for (const bad of [
      { from: AT, to: AT },
      { from: Number.NaN },
      { from: AT + 60_000, cursor: encodeCursor(timeOrderedKey(AT, "req-0")) },
      { to: AT, cursor: encodeCursor(timeOrderedKey(AT, "req-0")) },
      { cursor: encodeCursor("pump-7") },
    ]) {
      await expect(api.list(admin, bad), JSON.stringify(bad)).rejects.toMatchObject({
        code: "invalid_request",
      });
    }
  });
});

/**
 * The audit trail through the real console handler behind the local JWT-verifying gateway: every request
 * that asks for a change leaves one record in its tenant's trail, refusals too; reads leave none; admins read
 * it newest first, by time, actor and operation, page by page.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import {
  type ConsoleApiUnderTest,
  type ConsoleRequestOptions,
  startConsoleApi,
} from "../../scripts/test-support/console-api-harness.js";
import type { Role } from "../core/identity/principal.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;

const USER_AGENT = "beacon-audit-test/1.0";
type AuditItem = Record<string, unknown> & { requestId: string; at: string; operationId: string };

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

/** A tenant of the test's own, and its people: each role with a subject of its own. */
async function tenantOfItsOwn() {
  const tenant = `audit-${randomUUID().slice(0, 8)}`;
  const as = (role: Role, subject: string) => consoleApi.token({ tenant, role, subject });
  const [admin, operator, viewer] = await Promise.all([
    as("admin", "alice"),
    as("operator", "bob"),
    as("viewer", "carol"),
  ]);
  const send = (method: string, path: string, token: string, options: ConsoleRequestOptions = {}) =>
    consoleApi.request(method, path, {
      token,
      ...options,
      headers: { "user-agent": USER_AGENT, ...options.headers },
    });
  /** The whole trail, newest first, as the admin reads it page by page. */
  async function trail(query = "", limit = 100): Promise<AuditItem[]> {
    const items: AuditItem[] = [];
    let cursor: string | undefined;
    do {
      const parameters = new URLSearchParams(query);
      parameters.set("limit", String(limit));
      if (cursor) parameters.set("cursor", cursor);
      const page = await send("GET", `/api/v1/audit?${parameters}`, admin);
      expect(page.status, page.body).toBe(200);
      const body = page.json() as { items: AuditItem[]; nextCursor?: string };
      items.push(...body.items);
      cursor = body.nextCursor;
    } while (cursor);
    return items;
  }
  return { tenant, admin, operator, viewer, send, trail };
}

describe("the audit trail", () => {
  it("records a change by one user in that tenant's trail, and not in another tenant's", async () => {
    const a = await tenantOfItsOwn();
    const b = await tenantOfItsOwn();
    const changed = await a.send("PUT", "/api/v1/classes/pumps", a.operator, {
      body: { description: "Pumps", heartbeatIntervalSeconds: 30 },
    });
    expect(changed.status, changed.body).toBe(201);
    expect((await b.send("PUT", "/api/v1/classes/valves", b.operator, { body: {} })).status).toBe(201);

    const [record, ...rest] = await a.trail();
    expect(rest).toEqual([]);
    expect(record).toEqual({
      at: expect.any(String),
      requestId: changed.headers.get("apigw-requestid"),
      actor: { subject: "bob", role: "operator" },
      operationId: "putClass",
      method: "PUT",
      route: "/api/v1/classes/{className}",
      target: { className: "pumps" },
      status: 201,
      sourceIp: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
      userAgent: USER_AGENT,
      summary: { description: "Pumps", heartbeatIntervalSeconds: 30 },
    });
    expect(Math.abs(Date.parse(record?.at as string) - Date.now())).toBeLessThan(5 * 60_000);
    const theirs = await b.trail();
    expect(theirs.map((item) => item.target)).toEqual([{ className: "valves" }]);
    expect(JSON.stringify(theirs)).not.toContain(a.tenant);
  });

  it("records refused attempts with their status and error, and none of a request without a tenant", async () => {
    const a = await tenantOfItsOwn();
    const attempts = [
      { call: () => a.send("PUT", "/api/v1/classes/pumps", a.viewer, { body: {} }), status: 403 },
      { call: () => a.send("DELETE", `/api/v1/assets/${"0".repeat(64)}`, a.operator), status: 404 },
      {
        call: () =>
          a.send("PUT", "/api/v1/classes/pumps", a.operator, { body: { heartbeatIntervalSeconds: 0 } }),
        status: 400,
      },
      {
        call: () =>
          a.send("POST", "/api/v1/operations", a.operator, {
            body: {
              agentId: "ghost",
              operation: "UPDATE",
              operand: "PROPERTIES",
              args: { secret: "hunter2" },
            },
          }),
        status: 404,
      },
    ];
    const requestIds: (string | null)[] = [];
    for (const attempt of attempts) {
      const response = await attempt.call();
      expect(response.status, response.body).toBe(attempt.status);
      requestIds.push(response.headers.get("apigw-requestid"));
    }
    expect((await a.send("PUT", "/api/v1/classes/pumps", "not-a-token", { body: {} })).status).toBe(401);

    const records = await a.trail();
    expect(records.map((record) => record.requestId)).toEqual(requestIds.reverse());
    expect(records.map((record) => [record.operationId, record.status, record.errorCode])).toEqual([
      ["createOperation", 404, "not_found"],
      ["putClass", 400, "invalid_request"],
      ["deleteAsset", 404, "not_found"],
      ["putClass", 403, "forbidden"],
    ]);
    expect(records[0]?.summary).toEqual({ agentId: "ghost", operation: "UPDATE", operand: "PROPERTIES" });
    expect(records[3]).toMatchObject({
      actor: { subject: "carol", role: "viewer" },
      target: { className: "pumps" },
    });
    expect(records[3]).not.toHaveProperty("summary");
    expect(JSON.stringify(records)).not.toContain("hunter2");
  });

  it("records a conflict after the changes that led to it, with their summaries and not the asset's bytes", async () => {
    const a = await tenantOfItsOwn();
    const bytes = Buffer.from(`calibration table ${a.tenant}`);
    const stored = await a.send("POST", "/api/v1/assets?name=calibration.csv", a.operator, {
      body: bytes,
      headers: { "content-type": "text/csv" },
    });
    expect(stored.status, stored.body).toBe(201);
    const { assetId } = stored.json() as { assetId: string };
    const held = await a.send("PUT", "/api/v1/classes/pumps/resources", a.operator, {
      body: { items: [{ assetId }] },
    });
    expect(held.status, held.body).toBe(201);
    const refused = await a.send("DELETE", `/api/v1/assets/${assetId}`, a.operator);
    expect(refused.status, refused.body).toBe(409);

    const records = await a.trail();
    expect(records.map((record) => [record.operationId, record.status, record.errorCode])).toEqual([
      ["deleteAsset", 409, "asset_in_use"],
      ["putResourceSet", 201, undefined],
      ["uploadAsset", 201, undefined],
    ]);
    expect(records.map((record) => record.summary)).toEqual([
      undefined,
      { assetIds: [assetId], digest: expect.any(String) },
      { name: "calibration.csv", assetId, sizeBytes: bytes.length },
    ]);
    expect(records[0]?.target).toEqual({ assetId });
    expect(JSON.stringify(records)).not.toContain("calibration table");
  });

  it("keeps no record of reads, and nothing secret of a change", async () => {
    const a = await tenantOfItsOwn();
    const issued = await a.send("POST", "/api/v1/certificates", a.admin, {
      body: { kind: "fleet", fleetName: "line-1", generateKey: true },
    });
    expect(issued.status, issued.body).toBe(201);
    const { serial, privateKeyPem } = issued.json() as { serial: string; privateKeyPem: string };
    expect(privateKeyPem).toContain("PRIVATE KEY");
    for (const path of [
      "/api/v1/classes",
      "/api/v1/agents",
      `/api/v1/certificates/${serial}`,
      "/api/v1/operations",
      "/api/v1/audit",
    ]) {
      expect((await a.send("GET", path, a.admin)).status).toBe(200);
    }

    const records = await a.trail();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      operationId: "issueCertificate",
      status: 201,
      summary: { kind: "fleet", fleetName: "line-1", key: "generated", serial },
    });
    expect(JSON.stringify(records)).not.toMatch(/PRIVATE KEY|CERTIFICATE/);
  });

  it("is read by admins only, by actor, operation and time, page by page", async () => {
    const a = await tenantOfItsOwn();
    for (const [token, className] of [
      [a.operator, "one"],
      [a.admin, "two"],
      [a.operator, "three"],
    ] as const) {
      expect((await a.send("PUT", `/api/v1/classes/${className}`, token, { body: {} })).status).toBe(201);
    }
    expect((await a.send("DELETE", `/api/v1/assets/${"1".repeat(64)}`, a.operator)).status).toBe(404);

    const all = await a.trail();
    const classesOf = (records: AuditItem[]) =>
      records.map((record) => (record.target as { className?: string }).className ?? record.operationId);
    expect(classesOf(all)).toEqual(["deleteAsset", "three", "two", "one"]);
    expect(await a.trail("", 1)).toEqual(all);
    expect(classesOf(await a.trail("actor=bob"))).toEqual(["deleteAsset", "three", "one"]);
    expect(classesOf(await a.trail("actor=bob&operation=putClass", 1))).toEqual(["three", "one"]);
    expect(await a.trail("operation=abortRollout")).toEqual([]);
    const [, third, second] = all;
    const times = (query: Record<string, string>) => a.trail(new URLSearchParams(query).toString());
    const at = (record: AuditItem | undefined) => Date.parse(record?.at as string);
    expect(await times({ from: second?.at as string })).toEqual(
      all.filter((record) => at(record) >= at(second)),
    );
    expect(await times({ to: third?.at as string })).toEqual(all.filter((record) => at(record) < at(third)));
    expect(await times({ to: all.at(-1)?.at as string })).toEqual([]);

    for (const token of [a.operator, a.viewer]) {
      const refused = await a.send("GET", "/api/v1/audit", token);
      expect(refused.status).toBe(403);
    }
    const backwards = await a.send(
      "GET",
      `/api/v1/audit?${new URLSearchParams({ from: all[0]?.at as string, to: all.at(-1)?.at as string })}`,
      a.admin,
    );
    expect(backwards.status).toBe(400);
    expect(await a.trail()).toEqual(all);
  });
});

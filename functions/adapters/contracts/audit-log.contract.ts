import { expect, it } from "vitest";
import type { AuditRecord } from "../../core/audit/model.js";
import type { AuditLog } from "../../core/audit/ports.js";
import type { Page } from "../../core/paging.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 21);

/** A tenant's audit trail: kept once per request, read by time range newest first, narrowed once read. */
export const auditLogContract = contract<AuditLog>("the audit log", (the) => {
  /** A record of a request `seconds` after START. */
  const record = (seconds: number, changes: Partial<AuditRecord> = {}): AuditRecord => ({
    tenant: the.tenant,
    at: START + seconds * 1_000,
    requestId: `request-${seconds}`,
    actor: { subject: "alice", role: "operator" },
    operationId: "putClass",
    method: "PUT",
    route: "/api/v1/classes/{className}",
    target: { className: "pumps" },
    status: 201,
    ...changes,
  });
  const idsOf = (page: Page<AuditRecord>) => page.items.map((item) => item.requestId);

  it("keeps each record whole, once however often it is added, and lists the tenant's newest first", async () => {
    const log = the.subject;
    const full = record(2, {
      status: 403,
      errorCode: "forbidden",
      sourceIp: "203.0.113.7",
      userAgent: "beacon-cli/1.0",
      summary: { description: "Pumps", heartbeatIntervalSeconds: 30, selector: { class: "pumps" } },
    });
    await log.add(record(1));
    await log.add(full);
    await log.add(full);
    await log.add(record(3, { tenant: `${the.tenant}-other` }));

    const page = await log.list(the.tenant, { limit: 10 });
    expect(page.items).toEqual([full, record(1)]);
    expect(page.last).toBeUndefined();
    expect(idsOf(await log.list(`${the.tenant}-other`, { limit: 10 }))).toEqual(["request-3"]);
  });

  it("tells apart requests of the same millisecond by their ids", async () => {
    const log = the.subject;
    await log.add(record(1, { requestId: "request-a" }));
    await log.add(record(1, { requestId: "request-b" }));
    expect(idsOf(await log.list(the.tenant, { limit: 10 }))).toEqual(["request-b", "request-a"]);
  });

  it("pages newest first, each page going on after the last key of the one before", async () => {
    const log = the.subject;
    for (let seconds = 1; seconds <= 5; seconds++) await log.add(record(seconds));
    const first = await log.list(the.tenant, { limit: 2 });
    expect(idsOf(first)).toEqual(["request-5", "request-4"]);
    const second = await log.list(the.tenant, { limit: 2, after: first.last });
    expect(idsOf(second)).toEqual(["request-3", "request-2"]);
    const third = await log.list(the.tenant, { limit: 2, after: second.last });
    expect(idsOf(third)).toEqual(["request-1"]);
    expect(third.last).toBeUndefined();
  });

  it("reads from `from`, included, up to `to`, excluded, and pages within them", async () => {
    const log = the.subject;
    for (let seconds = 1; seconds <= 6; seconds++) await log.add(record(seconds));
    const range = { from: START + 2_000, to: START + 5_000 };
    expect(idsOf(await log.list(the.tenant, { ...range, limit: 10 }))).toEqual([
      "request-4",
      "request-3",
      "request-2",
    ]);
    const first = await log.list(the.tenant, { ...range, limit: 2 });
    expect(idsOf(first)).toEqual(["request-4", "request-3"]);
    expect(idsOf(await log.list(the.tenant, { ...range, limit: 2, after: first.last }))).toEqual([
      "request-2",
    ]);
    expect(idsOf(await log.list(the.tenant, { from: START + 5_000, limit: 10 }))).toEqual([
      "request-6",
      "request-5",
    ]);
    expect(idsOf(await log.list(the.tenant, { to: START + 2_000, limit: 10 }))).toEqual(["request-1"]);
  });

  it("narrows a page by actor and operation once read: a page may hold fewer, and the next goes on", async () => {
    const log = the.subject;
    await log.add(record(1, { actor: { subject: "bob", role: "admin" }, operationId: "revokeCertificate" }));
    await log.add(record(2));
    await log.add(record(3, { actor: { subject: "bob", role: "admin" } }));
    await log.add(record(4));

    const first = await log.list(the.tenant, { actor: "bob", limit: 2 });
    expect(idsOf(first)).toEqual(["request-3"]);
    expect(first.last).toBeDefined();
    const second = await log.list(the.tenant, { actor: "bob", limit: 2, after: first.last });
    expect(idsOf(second)).toEqual(["request-1"]);

    expect(idsOf(await log.list(the.tenant, { operationId: "revokeCertificate", limit: 10 }))).toEqual([
      "request-1",
    ]);
    expect(idsOf(await log.list(the.tenant, { actor: "bob", operationId: "putClass", limit: 10 }))).toEqual([
      "request-3",
    ]);
    expect(idsOf(await log.list(the.tenant, { actor: "carol", limit: 10 }))).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { consoleHarness } from "../../scripts/test-support/console-harness.js";
import { isBeaconError } from "../core/errors.js";
import type { Principal, Role } from "../core/identity/principal.js";
import type { ConsoleResult } from "../core/result.js";
import { type ConsoleOperation, consoleOperations, openApiDocument } from "../shared/console-openapi.js";
import { consoleRoutes } from "./routes.js";

/**
 * Every operation of the console's document, for a principal limited to class A of a tenant that has
 * classes A and B: with B's ids it is answered 404, word for word as with ids that exist nowhere, or
 * refused (403) where the operation concerns the whole tenant; with A's ids, as the whole tenant's principal
 * is; and no answer it gets names B's class or agent. Driven by the document, so that a new operation is
 * held to its `x-beacon-scope` without being listed here.
 */
const TENANT = "acme";
const A = { className: "class-a", agentId: "agent-a-1" };
const B = { className: "class-b", agentId: "agent-b-1" };
/** Ids of nothing in any tenant. */
const NOWHERE: Ids = {
  className: "class-nowhere",
  flowClass: "class-nowhere",
  agentId: "agent-nowhere",
  hash: "0".repeat(64),
  flowHash: "0".repeat(64),
  operationId: "operation-nowhere",
  rolloutId: "rollout-nowhere",
  serial: "0DEAD",
  adoptionId: "adoption-nowhere",
  groupName: "group-nowhere",
};
const ROLE: Role = "admin";
const whole: Principal = { tenant: TENANT, role: ROLE, subject: "whole-admin" };
const scopedTo = (...classes: string[]): Principal => ({ ...whole, subject: "scoped-admin", classes });

type Ids = Record<string, string>;
type Outcome = { ok: true; text: string } | { ok: false; code: string; message: string };

const uploadExample =
  openApiDocument.paths["/api/v1/classes/{className}/flows"].post.requestBody.content["application/json"]
    .example;
const flowBytes = new TextEncoder().encode(JSON.stringify(uploadExample));

/** A tenant with classes A and B, each with an agent, a flow, an operation, a rollout and a certificate. */
async function seeded() {
  const harness = consoleHarness();
  const { api } = harness;
  const idsOf = async (names: typeof A): Promise<Ids> => {
    await api.classes.put(whole, names.className, {});
    harness.agent(TENANT, names.agentId, names.className, 0, 0);
    const flow = (await api.flows.upload(whole, names.className, flowBytes)).body as { hash: string };
    const operations = (
      await api.operations.create(whole, {
        agentId: names.agentId,
        operation: "DESCRIBE",
        operand: "MANIFEST",
      })
    ).body as { items: { operationId: string }[] };
    const rollout = (
      await api.rollouts.start(whole, {
        className: names.className,
        flowHash: flow.hash,
        allowIncompatible: true,
      } as never)
    ).body as { rolloutId: string };
    await api.certificates.issue(whole, { kind: "agent", agentId: names.agentId, generateKey: true });
    const operationId = operations.items[0]?.operationId as string;
    await harness.debugBundles.create({
      tenant: TENANT,
      operationId,
      agentId: names.agentId,
      uploadId: `${operationId}-upload`,
      bytes: 1,
      storedAt: harness.now,
      expiresAt: harness.now + 86_400_000,
    });
    const actor = { subject: `${names.className}-operator`, role: "operator" as const };
    await harness.audit.add({
      tenant: TENANT,
      at: harness.now,
      requestId: `${names.className}-request`,
      actor: { ...actor, classes: [names.className] },
      operationId: "putClass",
      method: "PUT",
      route: "/api/v1/classes/{className}",
      target: { className: names.className },
      status: 200,
    });
    const groupName = `${names.className}-group`;
    await api.groups.create(whole, { name: groupName, query: { classes: [names.className] } });
    const certificates = (await api.certificates.list(whole, {})).body as {
      items: { serial: string; agentId?: string }[];
    };
    return {
      ...names,
      flowClass: names.className,
      hash: flow.hash,
      flowHash: flow.hash,
      operationId,
      rolloutId: rollout.rolloutId,
      serial: certificates.items.find((certificate) => certificate.agentId === names.agentId)
        ?.serial as string,
      adoptionId: `${names.className}-adoption`,
      groupName,
    };
  };
  const a = await idsOf(A);
  const b = await idsOf(B);
  // The Binaries page's counts, as the sweeper's counting pass leaves them: one agent of each class.
  await harness.groups.putCountingState(TENANT, {
    finishedAt: harness.now,
    binaries: {
      countedAt: harness.now,
      items: [A, B].map(({ className }) => ({ className, name: "Binary not yet known", agents: 1 })),
    },
  });
  return { routes: consoleRoutes(api), a, b };
}

/** The operation's example body, naming `ids`'s class, agent and flow wherever the example names one. */
function bodyOf(operation: ConsoleOperation, ids: Ids): unknown {
  const item = (openApiDocument.paths as Record<string, Record<string, unknown>>)[operation.path]?.[
    operation.method.toLowerCase()
  ] as { requestBody?: { content: Record<string, { example?: unknown }> } };
  const [contentType, content] = Object.entries(item.requestBody?.content ?? {})[0] ?? [];
  if (content === undefined) return undefined;
  if (!contentType?.endsWith("json")) return new TextEncoder().encode(String(content.example ?? ""));
  if (operation.operationId === "uploadFlow") return flowBytes;
  const example = { ...(content.example as Record<string, unknown>) };
  for (const field of Object.keys(example)) if (field in ids) example[field] = ids[field];
  // A selector picks the agents of `ids`'s class.
  if (typeof example.selector === "object") example.selector = { ...example.selector, class: ids.className };
  return example;
}

const inputOf = (operation: ConsoleOperation, ids: Ids, body = bodyOf(operation, ids)) => {
  const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
  return { path: Object.fromEntries(names.map((name) => [name, ids[name] ?? `${name}-1`])), query: {}, body };
};

async function outcome(call: () => Promise<ConsoleResult>): Promise<Outcome> {
  try {
    const { body } = await call();
    const text = body instanceof Uint8Array ? new TextDecoder().decode(body) : JSON.stringify(body);
    return { ok: true, text };
  } catch (error) {
    if (!isBeaconError(error)) throw error;
    return { ok: false, code: error.code, message: error.message };
  }
}

const namesB = (result: Outcome) =>
  result.ok && (result.text.includes(B.className) || result.text.includes(B.agentId));

describe("a principal limited to classes", () => {
  it.each(consoleOperations.map((operation) => [operation.operationId, operation.scope, operation] as const))(
    "%s (%s): B's is another tenant's, A's is the whole tenant's",
    async (_operationId, scope, operation) => {
      const call = async (principal: Principal, pick: "a" | "b" | "nowhere") => {
        const { routes, a, b } = await seeded();
        const route = routes[operation.operationId];
        if (!route) throw new Error(`No use case for ${operation.operationId}`);
        return outcome(() => route(principal, inputOf(operation, { a, b, nowhere: NOWHERE }[pick])));
      };
      const scopedA = await call(scopedTo(A.className), "a");
      const scopedB = await call(scopedTo(A.className), "b");
      expect(namesB(scopedA)).toBe(false);
      expect(namesB(scopedB)).toBe(false);
      if (scope === "tenant") {
        expect(scopedA).toMatchObject({ ok: false, code: "forbidden" });
        expect(scopedB).toMatchObject({ ok: false, code: "forbidden" });
        return;
      }
      const wholeA = await call(whole, "a");
      expect(scopedA.ok ? "ok" : scopedA.code).toBe(wholeA.ok ? "ok" : wholeA.code);
      if (scope === "class") {
        expect(scopedB).toMatchObject({ ok: false, code: "not_found" });
        expect(await call(scopedTo(A.className), "nowhere")).toEqual(scopedB);
      }
      if (scope.startsWith("items:")) expect(namesB(await call(whole, "b"))).toBe(true);
    },
  );

  it("reaches no agent of another class through a selector, and refuses one that names no class", async () => {
    const { routes } = await seeded();
    const create = (principal: Principal, selector: Record<string, string>) =>
      outcome(() =>
        (routes.createOperation as NonNullable<(typeof routes)["createOperation"]>)(principal, {
          path: {},
          query: {},
          body: { selector, operation: "DESCRIBE", operand: "MANIFEST" },
        }),
      );
    const scoped = scopedTo(A.className);
    const ofA = await create(scoped, { class: A.className });
    expect(ofA.ok && ofA.text).toContain(A.agentId);
    expect(await create(scoped, { class: B.className })).toMatchObject({ ok: false, code: "not_found" });
    expect(await create(scoped, { status: "online" })).toMatchObject({ ok: false, code: "forbidden" });
    expect(await create(scopedTo(), { class: A.className })).toMatchObject({ ok: false, code: "not_found" });
  });

  it("sees nothing at all when limited to no class", async () => {
    const { routes } = await seeded();
    for (const operationId of ["listAgents", "listClasses", "listOperations", "listRollouts"]) {
      const listed = await outcome(() =>
        (routes[operationId] as NonNullable<(typeof routes)[string]>)(scopedTo(), { path: {}, query: {} }),
      );
      expect(listed).toMatchObject({ ok: true, text: expect.stringContaining('"items":[]') });
    }
  });
});

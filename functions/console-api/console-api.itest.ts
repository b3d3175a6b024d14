import { createHash, generateKeyPairSync, randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signToken } from "../../scripts/local/console-issuer.js";
import type { WebhookReceiver } from "../../scripts/local/webhook-receiver.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import {
  followingRollout,
  heartbeat,
  installCertificate,
  javaFlow,
  publishFlow,
  rollOut,
  type SeededTenant,
  seedSelection,
  seedTenant,
} from "../../scripts/test-support/console-seed.js";
import { type Role, Roles } from "../core/identity/principal.js";
import { encodeCursor, MAX_PAGE_SIZE } from "../core/paging.js";
import { type ConsoleOperation, consoleOperations } from "../shared/console-openapi.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
/** The caller in every matrix, and the tenant whose ids it tries. */
let a: SeededTenant;
let b: SeededTenant;
let aFleet: string;
let unique = 0;

const newId = (label: string) => `${a.tenant}-${label}-${++unique}`;
const ops = consoleOperations.map((operation) => [operation.routeKey, operation] as const);
/** Reads first: a change A makes to its own data (a class named like B's) must not colour what A reads. */
const readsFirst = [...ops].sort(([, x], [, y]) => Number(x.method !== "GET") - Number(y.method !== "GET"));
const isError = (body: Record<string, unknown>, code: string) =>
  expect(body).toEqual({ error: { code, message: expect.any(String) } });
const expectExpositionWithout = (response: { status: number; body: string }, className: string) => {
  expect(response.status, response.body).toBe(200);
  expect(response.body.trimEnd().endsWith("# EOF")).toBe(true);
  expect(response.body).not.toContain(className);
};

interface Call {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The parameter each tenant's class and second agent have a value for. */
const PARAMETER = "kafka.brokers";
const parameterValue = { value: "broker-1:9092" };
/** Each tenant's asset, which its class's resource set holds. */
const assetIds = new Map<string, string>();
/** Each tenant's group, of its seeded class's agents: named as a class is, so by its class's name. */
const groupOf = (tenant: SeededTenant) => `${tenant.className}-all`;
/** Each tenant's selection job, of its seeded class, as a request by selector that ran out of time leaves. */
const selectionIds = new Map<string, string>();

/** Each tenant's event subscription, to a receiver on this machine. */
const subscriptionIds = new Map<string, string>();
let receiver: WebhookReceiver;

/** An upload of an asset of its own: bytes no other call sends. */
const assetUpload = (label: string): Call => ({
  method: "POST",
  path: `/api/v1/assets?name=${label}.bin`,
  body: Buffer.from(label),
  headers: { "content-type": "application/octet-stream" },
});

/** Each tenant's upload in parts, started and not completed. */
const uploadIds = new Map<string, string>();

/** The declaration of an upload in parts of an asset of its own: bytes no other call sends, in one part. */
const uploadDeclaration = (label: string) => ({
  name: `${label}.bin`,
  sizeBytes: Buffer.byteLength(label),
  sha256: createHash("sha256").update(label).digest("hex"),
  contentType: "application/octet-stream",
});

/** An upload in parts the tenant started of `label`'s bytes, with its one part sent or not; its id. */
async function startedUpload(tenant: SeededTenant, label: string, partSent: boolean): Promise<string> {
  const started = await send(
    { method: "POST", path: "/api/v1/assets/uploads", body: uploadDeclaration(label) },
    tenant.adminToken,
  );
  expect(started.status, started.body).toBe(201);
  const { uploadId, parts } = started.json() as { uploadId: string; parts: { url: string }[] };
  if (partSent) {
    const put = await fetch(parts[0]?.url as string, { method: "PUT", body: Buffer.from(label) });
    expect(put.status, await put.text()).toBe(200);
  }
  return uploadId;
}

/** The operation's request with these path parameter values and, where it takes one, a body. */
function callOf(operation: ConsoleOperation, ids: Record<string, string>, body?: unknown): Call {
  // Flow routes name their version `hash`.
  const values: Record<string, string | undefined> = operation.path.includes("/flows/")
    ? { ...ids, hash: ids.flowHash }
    : ids;
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(values[name] as string),
  );
  return { method: operation.method, path, body };
}

const idsOf = (tenant: SeededTenant, agentId = tenant.agentIds[1] as string) => ({
  agentId,
  className: tenant.className,
  manifestId: tenant.manifestId,
  serial: tenant.certificateSerial,
  operationId: tenant.operationId,
  flowHash: tenant.flowHash,
  rolloutId: tenant.rolloutId,
  assetId: assetIds.get(tenant.tenant) as string,
  subscriptionId: subscriptionIds.get(tenant.tenant) as string,
  name: PARAMETER,
  groupName: groupOf(tenant),
  selectionId: selectionIds.get(tenant.tenant) as string,
  uploadId: uploadIds.get(tenant.tenant) as string,
});

/** A class of B's beside its seeded one, with an agent of its own: all a token limited to it reaches. */
const limitedClass = () => `${b.tenant}-valves`;
const limitedAgent = () => `${b.tenant}-valve-1`;

/** The operation's request with the tenant's ids and, where it takes one, a body naming its first agent. */
const callOnIdsOf = (operation: ConsoleOperation, tenant: SeededTenant): Call =>
  operation.operationId === "uploadAsset"
    ? assetUpload(newId("asset"))
    : callOf(
        operation,
        idsFor(operation, tenant),
        bodies[operation.operationId]?.(tenant.agentIds[0] as string, tenant),
      );

/** Routes that name an operation with something to serve: its result, or its debug bundle. */
const operationIdFor: Record<string, (tenant: SeededTenant) => string> = {
  getOperationResult: (tenant) => tenant.resultOperationId,
  getDebugBundle: (tenant) => tenant.bundleOperationId,
  downloadDebugBundle: (tenant) => tenant.bundleOperationId,
};

/** The ids a route names of the tenant: the result and bundle routes name the operation that has one. */
const idsFor = (operation: ConsoleOperation, tenant: SeededTenant) => {
  const operationId = operationIdFor[operation.operationId]?.(tenant);
  return operationId === undefined ? idsOf(tenant) : { ...idsOf(tenant), operationId };
};

/** The body of each operation that takes one, naming this agent id and this tenant's class and version. */
const bodies: Record<string, (agentId: string, tenant: SeededTenant) => unknown> = {
  putClass: () => ({ description: "Changed" }),
  putSettings: () => ({ cleanUpAfterDays: 30 }),
  issueCertificate: (agentId) => ({ kind: "agent", agentId, generateKey: true }),
  createOperation: (agentId) => ({ agentId, operation: "DESCRIBE", operand: "MANIFEST" }),
  uploadFlow: (agentId) => javaFlow(agentId),
  labelFlow: (agentId) => ({ label: `probe ${agentId}` }),
  startRollout: (_agentId, tenant) => ({ className: tenant.className, flowHash: tenant.flowHash }),
  putResourceSet: (_agentId, tenant) => ({ items: [{ assetId: assetIds.get(tenant.tenant) }] }),
  createSubscription: (agentId) => ({ url: receiver.url, eventTypes: ["agent.*"], description: agentId }),
  adoptFlow: (agentId) => ({ flowId: `incumbent-flow-of-${agentId}` }),
  putClassParameter: () => parameterValue,
  putAgentParameter: () => parameterValue,
  putGroupParameter: () => parameterValue,
  startAssetUpload: (agentId) => uploadDeclaration(`upload-${agentId}-${randomUUID().slice(0, 8)}`),
  signAssetUploadParts: () => ({ partNumbers: [1] }),
  labelAgent: (agentId) => ({ set: { probe: agentId } }),
  pinAgent: (_agentId, tenant) => ({ flowHash: tenant.flowHash }),
  pinGroup: () => ({}),
  labelAgents: (agentId, tenant) => ({ selector: { class: tenant.className }, set: { probe: agentId } }),
  refuseRollout: () => ({ reason: "Probed" }),
  createGroup: (_agentId, tenant) => ({ name: groupOf(tenant), query: { classes: [tenant.className] } }),
  putGroup: (agentId, tenant) => ({ description: agentId, query: { classes: [tenant.className] } }),
};

async function send(call: Call, token: string | undefined) {
  return consoleApi.request(call.method, call.path, { token, body: call.body, headers: call.headers });
}

/**
 * What tenant B can see of itself, minus what moves with the clock, as the cache serves it: a read that timed
 * out on a busy machine is answered without the cache, as the document says (from the registry, with fewer
 * fields; an agent list without its agents' `attention`), so such a snapshot is taken again.
 */
async function snapshotOf(tenant: SeededTenant) {
  for (const deadline = Date.now() + 60_000; ; ) {
    const snapshot = await readSnapshot(tenant);
    if (!answeredWithoutCache(snapshot) || Date.now() > deadline) return snapshot;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * Whether a read of the snapshot was answered without the cache: a registry source, or an agent list's entry
 * whose attention the cache did not tell.
 */
function answeredWithoutCache(snapshot: Awaited<ReturnType<typeof readSnapshot>>): boolean {
  const attentionUntold = snapshot.some(([, body]) => {
    const { items } = body as { items?: unknown };
    return (
      Array.isArray(items) &&
      items.some((item: Record<string, unknown>) => "lastSeenFrom" in item && !("attention" in item))
    );
  });
  return attentionUntold || /"(countsFrom|lastSeenFrom)":"registry"/.test(JSON.stringify(snapshot));
}

async function readSnapshot(tenant: SeededTenant) {
  const get = async (path: string) => {
    const response = await consoleApi.request("GET", path, { token: tenant.adminToken });
    const body = response.json();
    delete body.heartbeatsPerMinute;
    delete body.countedAt;
    return [response.status, body];
  };
  return Promise.all([
    get("/api/v1/agents"),
    ...tenant.agentIds.map((agentId) => get(`/api/v1/agents/${agentId}`)),
    ...tenant.agentIds.map((agentId) => get(`/api/v1/agents/${agentId}/events`)),
    get("/api/v1/classes"),
    get(`/api/v1/classes/${tenant.className}`),
    get("/api/v1/settings"),
    get("/api/v1/manifests"),
    get(`/api/v1/manifests/${tenant.manifestId}`),
    get("/api/v1/certificates"),
    get(`/api/v1/certificates/${tenant.certificateSerial}`),
    get("/api/v1/fleet/summary"),
    get("/api/v1/operations"),
    get(`/api/v1/operations/${tenant.operationId}`),
    get(`/api/v1/operations/${tenant.resultOperationId}/result`),
    get("/api/v1/debug-bundles"),
    get(`/api/v1/debug-bundles/${tenant.bundleOperationId}`),
    get(`/api/v1/classes/${tenant.className}/flows`),
    get("/api/v1/rollouts"),
    get(`/api/v1/rollouts/${tenant.rolloutId}`),
    get(`/api/v1/rollouts/${tenant.rolloutId}/agents`),
    get("/api/v1/assets"),
    get(`/api/v1/assets/${assetIds.get(tenant.tenant)}`),
    get(`/api/v1/classes/${tenant.className}/resources`),
    get(`/api/v1/webhooks/${subscriptionIds.get(tenant.tenant)}/deliveries`),
    get("/api/v1/webhooks"),
    get(`/api/v1/webhooks/${subscriptionIds.get(tenant.tenant)}`),
    get(`/api/v1/classes/${tenant.className}/parameters`),
    ...tenant.agentIds.map((agentId) => get(`/api/v1/agents/${agentId}/parameters`)),
    get("/api/v1/groups"),
    get(`/api/v1/groups/${groupOf(tenant)}`),
    get(`/api/v1/groups/${groupOf(tenant)}/agents`),
    get(`/api/v1/groups/${groupOf(tenant)}/parameters`),
    get(`/api/v1/operations/selections/${selectionIds.get(tenant.tenant)}`),
  ]);
}

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  const run = randomUUID().slice(0, 6);
  [a, b] = await Promise.all([
    seedTenant(agentApi, consoleApi, `ta-${run}`),
    seedTenant(agentApi, consoleApi, `tb-${run}`),
  ]);
  aFleet = await agentApi.issueCertificate({ tenant: a.tenant, fleet: true });
  receiver = await consoleApi.startReceiver();
  for (const tenant of [a, b]) {
    const stored = await send(assetUpload(`${tenant.tenant}-calibration`), tenant.adminToken);
    expect(stored.status, stored.body).toBe(201);
    assetIds.set(tenant.tenant, stored.json().assetId as string);
    uploadIds.set(tenant.tenant, await startedUpload(tenant, `${tenant.tenant}-staged`, false));
    const set = await send(
      {
        method: "PUT",
        path: `/api/v1/classes/${tenant.className}/resources`,
        body: bodies.putResourceSet?.("", tenant),
      },
      tenant.adminToken,
    );
    expect(set.status, set.body).toBe(201);
    const subscribed = await send(
      { method: "POST", path: "/api/v1/webhooks", body: bodies.createSubscription?.(tenant.tenant, tenant) },
      tenant.adminToken,
    );
    expect(subscribed.status, subscribed.body).toBe(201);
    subscriptionIds.set(tenant.tenant, subscribed.json().subscriptionId as string);
    for (const path of [
      `/api/v1/classes/${tenant.className}/parameters/${PARAMETER}`,
      `/api/v1/agents/${tenant.agentIds[1]}/parameters/${PARAMETER}`,
    ]) {
      const valued = await send({ method: "PUT", path, body: parameterValue }, tenant.adminToken);
      expect(valued.status, valued.body).toBe(201);
    }
    const grouped = await send(
      { method: "POST", path: "/api/v1/groups", body: bodies.createGroup?.("", tenant) },
      tenant.adminToken,
    );
    expect(grouped.status, grouped.body).toBe(201);
    const groupValued = await send(
      {
        method: "PUT",
        path: `/api/v1/groups/${groupOf(tenant)}/parameters/${PARAMETER}`,
        body: parameterValue,
      },
      tenant.adminToken,
    );
    expect(groupValued.status, groupValued.body).toBe(201);
    selectionIds.set(tenant.tenant, await seedSelection(tenant));
  }
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

describe("tenant isolation, every route of the OpenAPI document with tenant A's token and tenant B's ids", () => {
  let before: unknown;

  beforeAll(async () => {
    before = await snapshotOf(b);
  });

  afterAll(async () => {
    expect(await snapshotOf(b)).toEqual(before);
  });

  it.each(readsFirst)("%s", async (_routeKey, operation) => {
    const response = await send(callOnIdsOf(operation, b), a.adminToken);
    if (operation.operationId === "getFleetMetrics") {
      // An exposition, not JSON: A's own fleet, where none of B's classes appears.
      expectExpositionWithout(response, b.className);
      return;
    }
    const body = response.json();
    if (operation.operationId === "putClass") {
      // Class names belong to each tenant: A gets a class of its own by that name, B's stays as it was.
      expect(response.status).toBe(201);
      expect(body).toMatchObject({ name: b.className, description: "Changed", agents: { total: 0 } });
    } else if (
      operation.operationId === "putClassParameter" ||
      operation.operationId === "deleteClassParameter"
    ) {
      // A's class by B's class name (putClass made it) holds A's own value, set, then removed.
      expect(response.status).toBe(operation.operationId === "putClassParameter" ? 201 : 200);
      expect(body).toMatchObject({ name: PARAMETER, updatedBy: expect.stringContaining(a.tenant) });
    } else if (operation.operationId === "discardStagedClassParameters") {
      // A's class by B's class name (putClass made it) has no staged changes: A discards none, B's stay.
      expect(response.status).toBe(200);
      expect(body).toEqual({ items: [] });
    } else if (operation.operationId === "listFlows" || operation.operationId === "listAdoptions") {
      // A's class by B's class name has no versions and no adoptions: the list is A's, and empty.
      expect(response.status).toBe(200);
      expect(body).toEqual({ items: [] });
    } else if (operation.operationId === "listRunningFlows") {
      // A's class by B's class name has no agents: none of B's runs anything there.
      expect(response.status).toBe(200);
      expect(body).toMatchObject({ className: b.className, flows: [] });
    } else if (operation.operationId === "uploadFlow") {
      // Flow versions belong to each tenant's class by that name: A publishes one of its own.
      expect(response.status).toBe(201);
      expect(body).toMatchObject({ className: b.className, createdBy: expect.stringContaining(a.tenant) });
    } else if (operation.operationId === "uploadAsset" || operation.operationId === "createSubscription") {
      // Assets and subscriptions belong to each tenant: A makes one of its own.
      expect(response.status).toBe(201);
      expect(body).toMatchObject({ createdBy: expect.stringContaining(a.tenant) });
    } else if (operation.operationId === "startAssetUpload") {
      // Uploads belong to each tenant: A starts one of its own.
      expect(response.status).toBe(201);
      expect(body).toMatchObject({ uploadId: expect.any(String) });
    } else if (operation.operationId === "createGroup") {
      // Group names belong to each tenant: A gets a group of its own by that name, of its own agents.
      expect(response.status).toBe(201);
      expect(body).toMatchObject({ name: groupOf(b), query: { classes: [b.className] } });
    } else if (operation.operationId === "putGroup" || operation.operationId === "deleteGroup") {
      // A's group by B's group's name (createGroup made it): A replaces, then deletes, its own.
      expect(response.status).toBe(200);
      expect(body).toMatchObject({ name: groupOf(b) });
    } else if (operation.operationId === "issueCertificate") {
      expect(response.status).toBe(201);
      expect(body.subjectDN).toBe(`CN=${b.agentIds[0]},OU=agent,O=${a.tenant}`);
    } else if (operation.operationId === "createOperation") {
      // Agent ids belong to each tenant: A has no agent by B's agent's id.
      expect(response.status).toBe(404);
      isError(body, "not_found");
    } else if (operation.operationId === "startRollout") {
      // A's class by B's class name holds only A's own version, not B's.
      expect(response.status).toBe(404);
      isError(body, "not_found");
    } else if (operation.path.includes("{")) {
      expect(response.status).toBe(404);
      isError(body, "not_found");
    } else if (operation.operationId === "listAuditRecords") {
      // A's trail holds A's own requests only; the ids of B's that A sent them with (an audited read among
      // them) are A's own input, and nothing else of B's is there.
      expect(response.status).toBe(200);
      const records = body.items as { actor: { subject: string }; target: unknown }[];
      expect(records.every((record) => record.actor.subject.startsWith(`${a.tenant}-`))).toBe(true);
      expect(JSON.stringify(records.map(({ target: _sent, ...record }) => record))).not.toContain(b.tenant);
    } else {
      expect(response.status).toBe(200);
      expect(response.body).not.toContain(b.tenant);
    }
  });

  const filters: Record<string, () => string> = {
    class: () => `class=${encodeURIComponent(b.className)}`,
    "manifest hash": () => `manifestHash=${encodeURIComponent(b.manifestHash)}`,
    "manifest id": () => `manifestId=${b.manifestId}`,
    text: () => `q=${b.tenant}`,
    cursor: () => `cursor=${encodeCursor(b.agentIds[0] as string)}`,
  };

  it.each(Object.keys(filters))("GET /api/v1/agents lists none of B's agents by B's %s", async (label) => {
    const query = (filters[label] as () => string)();
    const response = await consoleApi.request("GET", `/api/v1/agents?${query}`, { token: a.adminToken });
    expect(response.status).toBe(200);
    expect(response.body).not.toContain(b.tenant);
  });
});

describe("classes, every route of the OpenAPI document with a token of B limited to another of B's classes and B's ids", () => {
  let limited: string;
  let before: unknown;
  /** What of B's seeded class an answer may not name. */
  const namesSeededClass = (text: string) =>
    text.includes(b.className) || b.agentIds.some((agentId) => text.includes(agentId));

  beforeAll(async () => {
    const described = await send(
      {
        method: "PUT",
        path: `/api/v1/classes/${limitedClass()}`,
        body: { description: "Valves", heartbeatIntervalSeconds: 600 },
      },
      b.adminToken,
    );
    expect(described.status, described.body).toBe(201);
    const fleet = await agentApi.issueCertificate({ tenant: b.tenant, fleet: true });
    expect(await heartbeat(agentApi, fleet, limitedAgent(), limitedClass(), b.manifestHash)).toBe(200);
    limited = await consoleApi.token({ tenant: b.tenant, role: "admin", classes: [limitedClass()] });
    before = await snapshotOf(b);
  });

  afterAll(async () => {
    expect(await snapshotOf(b)).toEqual(before);
  });

  it.each(readsFirst)("%s", async (_routeKey, operation) => {
    const call = callOnIdsOf(operation, b);
    const response = await send(call, limited);
    // A tenant of its own for each route: what one route makes there colours no other's answer.
    const elsewhere = await send(call, await consoleApi.token({ tenant: newId("elsewhere"), role: "admin" }));
    if (operation.operationId === "getFleetMetrics") {
      // An exposition, not JSON: the token's own classes only, so not the seeded class.
      expectExpositionWithout(response, b.className);
      return;
    }
    const body = response.json();
    if (operation.scope === "tenant") {
      expect(response.status).toBe(403);
      isError(body, "forbidden");
    } else if (operation.scope === "shared") {
      // The tenant's for every principal of it: the manifests its agents run.
      expect(response.status).toBe((await send(call, b.adminToken)).status);
    } else if (operation.operationId === "listGroupAgents") {
      // B's group is B's: the token lists its members of its own classes (none, the group is of the seeded
      // class); another tenant has no group by that name.
      expect([response.status, elsewhere.status]).toEqual([200, 404]);
      expect(body.items).toEqual([]);
    } else if (operation.scope === "members") {
      // The token pins and unpins B's group's members of its own classes only: none, the group is of the
      // seeded class, whose agents stay as they were (the snapshot); another tenant has no group by that name.
      expect([response.status, elsewhere.status]).toEqual([200, 404]);
      expect(body).toMatchObject({ skipped: [], skippedCount: 0 });
      expect(Object.values(body)).toContain(0);
    } else if (operation.scope.startsWith("items:")) {
      expect([response.status, elsewhere.status]).toEqual([200, 200]);
      // The trail keeps the token's own requests, with B's ids it sent as their input; nothing else of B's.
      const items = (body.items as Record<string, unknown>[]).map(({ target: _sent, ...item }) => item);
      expect(namesSeededClass(JSON.stringify(items))).toBe(false);
    } else if (elsewhere.status >= 400) {
      // Refused as another tenant is: the same status and code. The message may name the class where the
      // other's names what is under it ("No such agent class", "The class has no such flow version"); it
      // is the same words whether B's class exists or not (scopes.test.ts).
      const refusal = ({ status, json }: typeof response) => ({
        status,
        code: (json().error as { code?: string } | undefined)?.code,
      });
      expect(refusal(response)).toEqual(refusal(elsewhere));
    } else {
      // Names belong to each tenant: another makes or lists its own by that name; B's is out of reach.
      expect(response.status).toBe(404);
      isError(body, "not_found");
    }
    expect(namesSeededClass(response.body.replace(/"target":\{[^}]*\}/g, ""))).toBe(false);
  });
});

describe("classes, the agents a token limited to some reaches", () => {
  it("lists only its classes' agents, and a selector picks none of another class", async () => {
    const limited = await consoleApi.token({
      tenant: b.tenant,
      role: "operator",
      classes: [limitedClass()],
    });
    const listed = await send({ method: "GET", path: "/api/v1/agents?limit=100" }, limited);
    expect((listed.json().items as { agentId: string }[]).map((item) => item.agentId)).toEqual([
      limitedAgent(),
    ]);
    const byClass = await send({ method: "GET", path: `/api/v1/agents?class=${b.className}` }, limited);
    expect(byClass.json().items).toEqual([]);
    const select = (selector: Record<string, string>) =>
      send(
        {
          method: "POST",
          path: "/api/v1/operations",
          body: { selector, operation: "DESCRIBE", operand: "MANIFEST" },
        },
        limited,
      );
    const ofItsClass = await select({ class: limitedClass() });
    expect(ofItsClass.status, ofItsClass.body).toBe(201);
    expect((ofItsClass.json().items as { agentId: string }[]).map((item) => item.agentId)).toEqual([
      limitedAgent(),
    ]);
    const ofAnother = await select({ class: b.className });
    expect(ofAnother.status).toBe(404);
    isError(ofAnother.json(), "not_found");
  });
});

describe("roles, every role on every route", () => {
  /** A rollout under way to a class of its own without agents, which nothing but a person moves on. */
  async function freshRollout(): Promise<string> {
    const className = newId("class");
    return (await rollOut(consoleApi, a.adminToken, className, javaFlow(className))).rolloutId;
  }

  /** A continuous rollout following a selector in a class of its own without agents. */
  async function followingRolloutOfItsOwn(): Promise<string> {
    const className = newId("class");
    return followingRollout(consoleApi, a.adminToken, className, javaFlow(className));
  }

  /**
   * A rollout awaiting approval in a class of its own, created by an operator who makes no other call, so
   * that every role's operator and admin may approve it.
   */
  async function waitingRollout(): Promise<string> {
    const className = newId("class");
    const put = await send(
      { method: "PUT", path: `/api/v1/classes/${className}`, body: { requireApproval: true } },
      a.adminToken,
    );
    expect(put.status, put.body).toBe(201);
    const creator = await consoleApi.token({
      tenant: a.tenant,
      role: "operator",
      subject: `${a.tenant}-creator`,
    });
    return (await rollOut(consoleApi, creator, className, javaFlow(className))).rolloutId;
  }

  /**
   * An agent of its own, running the version it is pinned to (so it is sent nothing): a pin would hold the
   * seeded ones out of the class's rollout.
   */
  async function agentToPin(label: string): Promise<string> {
    const agentId = newId(label);
    expect(
      await heartbeat(agentApi, aFleet, agentId, a.className, a.manifestHash, { flowId: a.flowHash }),
    ).toBe(200);
    return agentId;
  }

  let settingsChanges = 0;

  /** A request on A's own data that the role, when allowed, can carry out; destructive ones get fresh targets. */
  async function ownCall(operation: ConsoleOperation): Promise<Call> {
    switch (operation.operationId) {
      case "decommissionAgent": {
        const agentId = newId("doomed");
        expect(await heartbeat(agentApi, aFleet, agentId, a.className, a.manifestHash)).toBe(200);
        return callOf(operation, { agentId });
      }
      case "pinAgent":
      case "unpinAgent": {
        const agentId = await agentToPin("pinned");
        return callOf(operation, { agentId }, bodies[operation.operationId]?.(agentId, a));
      }
      case "pinGroup":
      case "unpinGroup": {
        // A group of its own, whose one member is an agent of its own labelled for it.
        const agentId = await agentToPin("group-pinned");
        const labelled = await send(
          { method: "POST", path: `/api/v1/agents/${agentId}/labels`, body: { set: { ring: agentId } } },
          a.adminToken,
        );
        expect(labelled.status, labelled.body).toBe(200);
        const groupName = newId("pin-group");
        const created = await send(
          {
            method: "POST",
            path: "/api/v1/groups",
            body: { name: groupName, query: { labels: [`ring=${agentId}`] } },
          },
          a.adminToken,
        );
        expect(created.status, created.body).toBe(201);
        return callOf(operation, { groupName }, bodies[operation.operationId]?.(agentId, a));
      }
      case "revokeCertificate": {
        const issued = await send(
          {
            method: "POST",
            path: "/api/v1/certificates",
            body: { kind: "fleet", fleetName: newId("fleet"), generateKey: true },
          },
          a.adminToken,
        );
        return callOf(operation, { serial: issued.json().serial as string });
      }
      case "putClass":
        return callOf(operation, { className: newId("class") }, bodies.putClass?.("", a));
      case "putSettings":
        // An age of its own each call, which a refused one must not have left.
        return callOf(operation, {}, { cleanUpAfterDays: 100 + ++settingsChanges });
      case "createOperation":
        return callOf(operation, {}, bodies.createOperation?.(a.agentIds[2] as string, a));
      case "cancelOperation": {
        const queued = await send(
          {
            method: "POST",
            path: "/api/v1/operations",
            body: bodies.createOperation?.(a.agentIds[2] as string, a),
          },
          a.adminToken,
        );
        return callOf(operation, {
          operationId: (queued.json().items as { operationId: string }[])[0]?.operationId as string,
        });
      }
      case "startRollout": {
        // A class of its own: the seeded one has its rollout under way.
        const className = newId("class");
        const flowHash = await publishFlow(consoleApi, a.adminToken, className, javaFlow(className));
        return callOf(operation, {}, { className, flowHash });
      }
      case "uploadAsset":
        return assetUpload(newId("asset"));
      case "startAssetUpload":
        return callOf(operation, {}, uploadDeclaration(newId("upload")));
      case "abortAssetUpload":
        return callOf(operation, { uploadId: await startedUpload(a, newId("doomed-upload"), false) });
      case "completeAssetUpload":
        return callOf(operation, { uploadId: await startedUpload(a, newId("upload"), true) });
      case "createGroup":
        return callOf(operation, {}, { name: newId("group"), query: { classes: [a.className] } });
      case "deleteGroup": {
        const name = newId("doomed-group");
        const created = await send(
          { method: "POST", path: "/api/v1/groups", body: { name, query: {} } },
          a.adminToken,
        );
        expect(created.status, created.body).toBe(201);
        return callOf(operation, { groupName: name });
      }
      case "deleteAsset": {
        const stored = await send(assetUpload(newId("doomed-asset")), a.adminToken);
        return callOf(operation, { assetId: stored.json().assetId as string });
      }
      case "deleteSubscription": {
        const subscribed = await send(
          { method: "POST", path: "/api/v1/webhooks", body: bodies.createSubscription?.(newId("doomed"), a) },
          a.adminToken,
        );
        return callOf(operation, { subscriptionId: subscribed.json().subscriptionId as string });
      }
      case "adoptFlow": {
        const { className, flowId } = await arrivedWithFlow();
        return callOf(operation, { className }, { flowId });
      }
      case "getAdoption": {
        const { className, flowId } = await arrivedWithFlow();
        const requested = await send(
          { method: "POST", path: `/api/v1/classes/${className}/adoptions`, body: { flowId } },
          a.adminToken,
        );
        expect(requested.status, requested.body).toBe(201);
        return callOf(operation, { className, adoptionId: requested.json().adoptionId as string });
      }
      case "deleteClassParameter":
      case "deleteAgentParameter":
      case "deleteGroupParameter": {
        const call = callOf(operation, { ...idsOf(a), name: newId("doomed-parameter") });
        const valued = await send({ method: "PUT", path: call.path, body: parameterValue }, a.adminToken);
        expect(valued.status, valued.body).toBe(201);
        return call;
      }
      case "pauseRollout":
      case "abortRollout":
        return callOf(operation, { rolloutId: await freshRollout() });
      case "approveRollout":
      case "refuseRollout":
        return callOf(
          operation,
          { rolloutId: await waitingRollout() },
          bodies[operation.operationId]?.("", a),
        );
      case "finishRollout":
        return callOf(operation, { rolloutId: await followingRolloutOfItsOwn() });
      case "resumeRollout": {
        const rolloutId = await freshRollout();
        const paused = await send(
          { method: "POST", path: `/api/v1/rollouts/${rolloutId}/pause` },
          a.adminToken,
        );
        expect(paused.json().state).toBe("paused");
        return callOf(operation, { rolloutId });
      }
      default:
        return callOf(operation, idsFor(operation, a), bodies[operation.operationId]?.(newId("agent"), a));
    }
  }

  /**
   * An agent of a class of its own, new to Beacon and running a flow it arrived with, which it can be asked
   * for by TRANSFER DEBUG: the class's name and the flow's id.
   */
  async function arrivedWithFlow(): Promise<{ className: string; flowId: string }> {
    const className = newId("arrived");
    const flowId = newId("incumbent-flow");
    expect(
      await heartbeat(agentApi, aFleet, newId("arrived-agent"), className, a.manifestHash, { flowId }),
    ).toBe(200);
    return { className, flowId };
  }

  /** The state of the rollout an action's call names. */
  const rolloutStateOf = async (call: Call) =>
    (await send({ method: "GET", path: call.path.replace(/\/\w+$/, "") }, a.adminToken)).json().state;

  /** The value the call names is still the one the admin set, and set. */
  async function parameterSetByAdmin(call: Call) {
    const value = await send({ method: "GET", path: call.path }, a.adminToken);
    expect(value.json()).toMatchObject({ ...parameterValue, updatedBy: `${a.tenant}-admin` });
  }

  /** A refused change leaves its target as it was. */
  const unchangedAfterRefusal: Record<string, (call: Call) => Promise<void>> = {
    decommissionAgent: async (call) => {
      expect((await send({ method: "GET", path: call.path }, a.adminToken)).status).toBe(200);
    },
    revokeCertificate: async (call) => {
      const certificate = await send(
        { method: "GET", path: call.path.replace(/\/revoke$/, "") },
        a.adminToken,
      );
      expect(certificate.json().state).toBe("valid");
    },
    putClass: async (call) => {
      expect((await send({ method: "GET", path: call.path }, a.adminToken)).status).toBe(404);
    },
    putSettings: async (call) => {
      const settings = await send({ method: "GET", path: call.path }, a.adminToken);
      expect(settings.json().cleanUpAfterDays).not.toBe(
        (call.body as { cleanUpAfterDays: number }).cleanUpAfterDays,
      );
    },
    createOperation: async () => {
      const listed = await send(
        { method: "GET", path: `/api/v1/operations?agentId=${a.agentIds[2]}&limit=100` },
        a.adminToken,
      );
      const subjects = (listed.json().items as { createdBy: string }[]).map((item) => item.createdBy);
      expect(subjects).not.toContain(`${a.tenant}-viewer`);
    },
    cancelOperation: async (call) => {
      const operation = await send({ method: "GET", path: call.path.replace(/\/cancel$/, "") }, a.adminToken);
      expect(operation.json().state).toBe("queued");
    },
    issueCertificate: async (call) => {
      const listed = await send({ method: "GET", path: "/api/v1/certificates?limit=100" }, a.adminToken);
      expect(listed.body).not.toContain((call.body as { agentId: string }).agentId);
    },
    startRollout: async (call) => {
      const className = (call.body as { className: string }).className;
      const listed = await send(
        { method: "GET", path: `/api/v1/rollouts?className=${className}` },
        a.adminToken,
      );
      expect(listed.json().items).toEqual([]);
    },
    uploadAsset: async (call) => {
      const listed = await send({ method: "GET", path: "/api/v1/assets?limit=100" }, a.adminToken);
      expect(listed.body).not.toContain(new URL(call.path, "http://x").searchParams.get("name"));
    },
    deleteAsset: async (call) => {
      expect((await send({ method: "GET", path: call.path }, a.adminToken)).status).toBe(200);
    },
    createSubscription: async (call) => {
      const listed = await send({ method: "GET", path: "/api/v1/webhooks?limit=100" }, a.adminToken);
      expect(listed.body).not.toContain((call.body as { description: string }).description);
    },
    deleteSubscription: async (call) => {
      expect((await send({ method: "GET", path: call.path }, a.adminToken)).status).toBe(200);
    },
    adoptFlow: async (call) => {
      const listed = await send({ method: "GET", path: call.path }, a.adminToken);
      expect(listed.json().items).toEqual([]);
    },
    labelFlow: async (call) => {
      const version = await send({ method: "GET", path: call.path.replace(/\/label$/, "") }, a.adminToken);
      expect(version.json().label).not.toBe((call.body as { label: string }).label);
    },
    labelAgent: async (call) => {
      const agent = await send({ method: "GET", path: call.path.replace(/\/labels$/, "") }, a.adminToken);
      expect(agent.body).not.toContain((call.body as { set: { probe: string } }).set.probe);
    },
    pinAgent: async (call) => {
      const agent = await send({ method: "GET", path: call.path.replace(/\/pin$/, "") }, a.adminToken);
      expect(agent.json().pinnedFlow).toBeUndefined();
    },
    pinGroup: async (call) => {
      const members = await send(
        { method: "GET", path: call.path.replace(/\/pin$/, "/agents") },
        a.adminToken,
      );
      expect(members.json().items).toEqual([expect.not.objectContaining({ pinnedFlow: expect.anything() })]);
    },
    labelAgents: async (call) => {
      const probe = (call.body as { set: { probe: string } }).set.probe;
      const listed = await send({ method: "GET", path: `/api/v1/agents?label=probe=${probe}` }, a.adminToken);
      expect(listed.json().items).toEqual([]);
    },
    createGroup: async (call) => {
      const name = (call.body as { name: string }).name;
      expect((await send({ method: "GET", path: `/api/v1/groups/${name}` }, a.adminToken)).status).toBe(404);
    },
    putGroup: async (call) => {
      const group = await send({ method: "GET", path: call.path }, a.adminToken);
      expect(group.json().description).not.toBe((call.body as { description: string }).description);
    },
    deleteGroup: async (call) => {
      expect((await send({ method: "GET", path: call.path }, a.adminToken)).status).toBe(200);
    },
    putClassParameter: parameterSetByAdmin,
    putAgentParameter: parameterSetByAdmin,
    deleteClassParameter: parameterSetByAdmin,
    deleteAgentParameter: parameterSetByAdmin,
    putGroupParameter: parameterSetByAdmin,
    deleteGroupParameter: parameterSetByAdmin,
    pauseRollout: async (call) => expect(await rolloutStateOf(call)).toBe("canary"),
    resumeRollout: async (call) => expect(await rolloutStateOf(call)).toBe("paused"),
    abortRollout: async (call) => expect(await rolloutStateOf(call)).toBe("canary"),
    finishRollout: async (call) => expect(await rolloutStateOf(call)).toBe("following"),
    approveRollout: async (call) => expect(await rolloutStateOf(call)).toBe("awaiting_approval"),
    refuseRollout: async (call) => expect(await rolloutStateOf(call)).toBe("awaiting_approval"),
  };

  const cases = consoleOperations.flatMap((operation) =>
    Roles.map((role) => [operation.routeKey, role, operation] as const),
  );

  it.each(cases)("%s as %s", async (_routeKey, role: Role, operation) => {
    const call = await ownCall(operation);
    const response = await send(call, await consoleApi.token({ tenant: a.tenant, role }));
    if (Roles.indexOf(role) >= Roles.indexOf(operation.role)) {
      expect([200, 201], response.body).toContain(response.status);
    } else {
      expect(response.status).toBe(403);
      isError(response.json(), "forbidden");
      await unchangedAfterRefusal[operation.operationId]?.(call);
    }
  });
});

describe("JWT negatives, on every route", () => {
  const now = () => Math.floor(Date.now() / 1000);
  const claims = () => ({
    sub: "mallory",
    "custom:tenant": a.tenant,
    "custom:role": "admin",
    exp: now() + 600,
  });
  const negatives: Record<string, () => Promise<string | undefined>> = {
    "no token": async () => undefined,
    "not a JWT": async () => "not-a-token",
    expired: () => signToken(consoleApi.issuer, { ...claims(), iat: now() - 7200, exp: now() - 60 }),
    "not yet valid": () => signToken(consoleApi.issuer, { ...claims(), nbf: now() + 600 }),
    "wrong issuer": () => signToken(consoleApi.issuer, { ...claims(), iss: "https://issuer.example.org" }),
    "wrong audience": () => signToken(consoleApi.issuer, { ...claims(), aud: "another-api" }),
    "alg none": async () => {
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
      return `${part({ alg: "none", typ: "JWT" })}.${part({ ...claims(), iss: consoleApi.issuer.issuer, aud: consoleApi.issuer.audience })}.`;
    },
    "bad signature": () =>
      signToken(consoleApi.issuer, claims(), generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey),
    "missing tenant claim": () => signToken(consoleApi.issuer, { ...claims(), "custom:tenant": undefined }),
    "malformed classes claim": () => signToken(consoleApi.issuer, { ...claims(), "custom:classes": "a,,b" }),
  };
  const cases = Object.keys(negatives).flatMap((label) =>
    consoleOperations.map((operation) => [label, operation.routeKey, operation] as const),
  );

  it.each(cases)("%s: %s answers 401", async (label, _routeKey, operation) => {
    const token = await (negatives[label] as () => Promise<string | undefined>)();
    const response = await send(callOf(operation, idsOf(a), bodies[operation.operationId]?.("x", a)), token);
    expect(response.status).toBe(401);
    if (label.endsWith("claim")) isError(response.json(), "unauthenticated");
    else expect(response.json()).toEqual({ message: "Unauthorized" });
  });
});

describe("agent and console credentials stay apart", () => {
  it("the agent domain serves no console route, even with a valid agent certificate", async () => {
    for (const path of ["/api/v1/certificates", "/api/v1/agents"]) {
      const response = await agentApi.post(path, { kind: "fleet", fleetName: "x" }, { certificate: aFleet });
      expect(response.status).toBe(404);
    }
  });

  it("the console serves no agent route, even with a valid console token", async () => {
    const response = await consoleApi.request("POST", "/c2/api/heartbeat", { token: a.adminToken, body: {} });
    expect(response.status).toBe(404);
  });

  it("a certificate is not a token", async () => {
    const issued = await send(
      {
        method: "POST",
        path: "/api/v1/certificates",
        body: { kind: "fleet", fleetName: newId("f"), generateKey: true },
      },
      a.adminToken,
    );
    // The certificate's DER in base64, as one header line.
    const certificate = (issued.json().certificatePem as string).replace(/-----[A-Z ]+-----|\s/g, "");
    const response = await consoleApi.request("GET", "/api/v1/agents", { token: certificate });
    expect(response.status).toBe(401);
  });
});

describe("agent certificates", () => {
  it("are issued for the caller's tenant, work against the agent API, and are refused once revoked", async () => {
    const agentId = newId("certified");
    const issued = await send(
      {
        method: "POST",
        path: "/api/v1/certificates",
        body: { kind: "agent", agentId, validityDays: 30, generateKey: true },
      },
      a.adminToken,
    );
    expect(issued.status).toBe(201);
    const certificate = issued.json();
    expect(certificate).toMatchObject({
      kind: "agent",
      agentId,
      subjectDN: `CN=${agentId},OU=agent,O=${a.tenant}`,
      state: "valid",
    });
    expect(certificate.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const name = installCertificate(agentApi, agentId, certificate);

    expect(await heartbeat(agentApi, name, agentId, a.className, a.manifestHash)).toBe(200);
    const listed = await send({ method: "GET", path: "/api/v1/certificates?limit=100" }, a.adminToken);
    expect(listed.body).toContain(certificate.serial as string);
    expect(listed.body).not.toContain("PRIVATE KEY");

    const revoked = await send(
      { method: "POST", path: `/api/v1/certificates/${certificate.serial}/revoke` },
      a.adminToken,
    );
    expect(revoked.json()).toMatchObject({ serial: certificate.serial, state: "revoked" });
    const refused = await agentApi.post("/c2/api/heartbeat", {}, { certificate: name });
    expect(refused.status).toBe(403);
    expect(refused.json()).toMatchObject({ error: { code: "certificate_revoked" } });
  });
});

describe("agents", () => {
  it("list with filters, a bounded page size and a cursor", async () => {
    const token = await consoleApi.token({ tenant: a.tenant, role: "viewer" });
    const first = await consoleApi.request(
      "GET",
      `/api/v1/agents?class=${a.className}&status=online&limit=2`,
      { token },
    );
    expect(first.status).toBe(200);
    const firstPage = first.json();
    expect((firstPage.items as unknown[]).length).toBe(2);
    const second = await consoleApi.request(
      "GET",
      `/api/v1/agents?class=${a.className}&status=online&limit=2&cursor=${firstPage.nextCursor}`,
      { token },
    );
    const ids = [
      ...(firstPage.items as { agentId: string }[]),
      ...(second.json().items as { agentId: string }[]),
    ].map((item) => item.agentId);
    expect(ids).toEqual(expect.arrayContaining(a.agentIds));
    expect(new Set(ids).size).toBe(ids.length);

    const tooMany = await consoleApi.request("GET", "/api/v1/agents?limit=101", { token });
    expect(tooMany.status).toBe(400);
    isError(tooMany.json(), "invalid_request");
    const offline = await consoleApi.request("GET", `/api/v1/agents?class=${a.className}&status=offline`, {
      token,
    });
    expect(offline.json().items).toEqual([]);
    const past = await consoleApi.request("GET", `/api/v1/agents?lastSeenBefore=2020-01-01T00:00:00Z`, {
      token,
    });
    expect(past.json().items).toEqual([]);
    const descending = await consoleApi.request("GET", `/api/v1/agents?sort=-agentId&q=${a.tenant}-agent`, {
      token,
    });
    expect((descending.json().items as { agentId: string }[]).map((item) => item.agentId)).toEqual(
      [...a.agentIds].reverse(),
    );
  });

  it("show registry and hot state in one view", async () => {
    const response = await send({ method: "GET", path: `/api/v1/agents/${a.agentIds[0]}` }, a.adminToken);
    expect(response.json()).toMatchObject({
      agentId: a.agentIds[0],
      agentClass: a.className,
      status: "online",
      lastSeenFrom: "cache",
      manifestHash: a.manifestHash,
      device: expect.objectContaining({ hostname: "192.0.2.2" }),
      statusSummary: expect.objectContaining({ uptime: 493 }),
    });
  });

  it("are decommissioned with their agent certificates, and register again with a fleet certificate", async () => {
    const agentId = newId("retired");
    const issued = await send(
      { method: "POST", path: "/api/v1/certificates", body: { kind: "agent", agentId, generateKey: true } },
      a.adminToken,
    );
    const name = installCertificate(agentApi, agentId, issued.json());
    expect(await heartbeat(agentApi, name, agentId, a.className, a.manifestHash)).toBe(200);
    const operator = await consoleApi.token({ tenant: a.tenant, role: "operator" });
    const decommissioned = await send({ method: "DELETE", path: `/api/v1/agents/${agentId}` }, operator);
    expect(decommissioned.json()).toMatchObject({ agentId, revokedCertificates: [issued.json().serial] });
    expect((await send({ method: "GET", path: `/api/v1/agents/${agentId}` }, operator)).status).toBe(404);
    expect((await agentApi.post("/c2/api/heartbeat", {}, { certificate: name })).status).toBe(403);
    expect(await heartbeat(agentApi, aFleet, agentId, a.className, a.manifestHash)).toBe(200);
    expect((await send({ method: "GET", path: `/api/v1/agents/${agentId}` }, operator)).status).toBe(200);
  });
});

describe("agent labels", () => {
  /** More agents of one class than a page of the list holds, in A and two by the same class name in B. */
  const SELECTED = MAX_PAGE_SIZE + 5;
  let className: string;
  let agentIds: string[];
  let bAgentIds: string[];
  let operator: string;

  beforeAll(async () => {
    className = newId("labelled");
    agentIds = Array.from(
      { length: SELECTED },
      (_, index) => `${className}-${String(index).padStart(3, "0")}`,
    );
    bAgentIds = [`${b.tenant}-labelled-1`, `${b.tenant}-labelled-2`];
    const bFleet = await agentApi.issueCertificate({ tenant: b.tenant, fleet: true });
    const joins = [
      ...agentIds.map((agentId) => () => heartbeat(agentApi, aFleet, agentId, className, a.manifestHash)),
      ...bAgentIds.map((agentId) => () => heartbeat(agentApi, bFleet, agentId, className, b.manifestHash)),
    ];
    for (let start = 0; start < joins.length; start += 10)
      expect(await Promise.all(joins.slice(start, start + 10).map((join) => join()))).toEqual(
        joins.slice(start, start + 10).map(() => 200),
      );
    operator = await consoleApi.token({ tenant: a.tenant, role: "operator" });
  });

  /** Every agent id the list gives for the query, page after page. */
  async function listed(query: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await send(
        { method: "GET", path: `/api/v1/agents?${query}&limit=100${cursor ? `&cursor=${cursor}` : ""}` },
        operator,
      );
      expect(page.status, page.body).toBe(200);
      const body = page.json();
      ids.push(...(body.items as { agentId: string }[]).map((item) => item.agentId));
      cursor = body.nextCursor as string | undefined;
    } while (cursor !== undefined);
    return ids;
  }

  const labelsOf = async (token: string, agentId: string) =>
    (await send({ method: "GET", path: `/api/v1/agents/${agentId}` }, token)).json().labels;

  it("are set and removed on one agent, and refused with a clear 400 when malformed", async () => {
    const [agentId] = agentIds as [string];
    const label = (body: unknown, id = agentId) =>
      send({ method: "POST", path: `/api/v1/agents/${id}/labels`, body }, operator);
    const set = await label({ set: { site: "plant-7", "example.com/rack": "r1", gpu: "" } });
    expect(set.status, set.body).toBe(200);
    expect(set.json()).toEqual({ agentId, labels: { site: "plant-7", "example.com/rack": "r1", gpu: "" } });
    const removed = await label({ remove: ["example.com/rack", "absent"] });
    expect(removed.json()).toEqual({ agentId, labels: { site: "plant-7", gpu: "" } });
    expect(await labelsOf(operator, agentId)).toEqual({ site: "plant-7", gpu: "" });

    for (const body of [
      { set: { "bad key": "x" } },
      { set: { site: "plant 7" } },
      { set: { site: "a" }, remove: ["site"] },
      {},
    ]) {
      const refused = await label(body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      isError(refused.json(), "invalid_request");
    }
    const tooMany = await label({
      set: Object.fromEntries(Array.from({ length: 31 }, (_, index) => [`k${index}`, "v"])),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json().error).toMatchObject({ message: "An agent has at most 32 labels" });
    expect((await label({ set: { site: "x" } }, newId("nobody"))).status).toBe(404);
    expect(await labelsOf(operator, agentId)).toEqual({ site: "plant-7", gpu: "" });
  });

  it("are set and removed in bulk on every agent a selector picks, past a page, in the caller's tenant only", async () => {
    const bulk = (body: unknown) => send({ method: "POST", path: "/api/v1/fleet/labels", body }, operator);
    const zoned = await bulk({ selector: { class: className }, set: { zone: "north" } });
    expect(zoned.status, zoned.body).toBe(200);
    expect(zoned.json()).toEqual({ matched: SELECTED, changed: SELECTED, refused: 0, refusedAgents: [] });
    expect(await listed(`class=${className}&label=zone=north`)).toEqual(agentIds);
    // Terms are AND-ed, repeated or separated by commas; a term without a value asks for the key.
    expect(await listed("label=zone=north&label=site=plant-7")).toEqual(agentIds.slice(0, 1));
    expect(await listed("label=zone=north,gpu")).toEqual(agentIds.slice(0, 1));
    expect(await listed(`class=${className}&label=site=plant-8`)).toEqual([]);
    const malformed = await send({ method: "GET", path: "/api/v1/agents?label=site=plant%207" }, operator);
    expect(malformed.status).toBe(400);
    expect(malformed.json().error).toMatchObject({
      message: expect.stringContaining('Label "site" has value'),
    });

    // Again, it changes nothing; then, by the label alone across the tenant, one key goes and another comes.
    expect((await bulk({ selector: { class: className }, set: { zone: "north" } })).json()).toMatchObject({
      matched: SELECTED,
      changed: 0,
    });
    const moved = await bulk({ selector: { labels: ["zone=north"] }, set: { wave: "1" }, remove: ["zone"] });
    expect(moved.json()).toMatchObject({ matched: SELECTED, changed: SELECTED });
    expect(await listed("label=zone")).toEqual([]);
    expect(await listed("label=wave=1")).toEqual(agentIds);
    expect(await labelsOf(operator, agentIds[0] as string)).toEqual({ site: "plant-7", gpu: "", wave: "1" });

    // B's agents of a class by the same name are untouched, and B's list finds none by A's labels.
    for (const agentId of bAgentIds) expect(await labelsOf(b.adminToken, agentId)).toBeUndefined();
    const bListed = await send({ method: "GET", path: "/api/v1/agents?label=wave=1" }, b.adminToken);
    expect(bListed.json().items).toEqual([]);

    const refused = await bulk({ selector: { class: className }, set: { "-bad": "x" } });
    expect(refused.status).toBe(400);
    isError(refused.json(), "invalid_request");
    const limited = await consoleApi.token({ tenant: a.tenant, role: "operator", classes: [className] });
    const tenantWide = await send(
      {
        method: "POST",
        path: "/api/v1/fleet/labels",
        body: { selector: { labels: ["wave=1"] }, set: { x: "y" } },
      },
      limited,
    );
    expect(tenantWide.status).toBe(403);
  });

  it("pick the agents of an operation's selector", async () => {
    const created = await send(
      {
        method: "POST",
        path: "/api/v1/operations",
        body: {
          selector: { class: className, labels: ["site=plant-7", "wave=1"] },
          operation: "DESCRIBE",
          operand: "MANIFEST",
        },
      },
      operator,
    );
    expect(created.status, created.body).toBe(201);
    expect((created.json().items as { agentId: string }[]).map((item) => item.agentId)).toEqual(
      agentIds.slice(0, 1),
    );
  });

  it("are read from what agents report by their class's sources, an operator's label of the same key over them", async () => {
    const reporting = newId("reporting");
    const sources = [
      { label: "os", from: "device:operatingSystem" },
      { label: "build", from: "agent:version" },
    ];
    const put = await send(
      { method: "PUT", path: `/api/v1/classes/${reporting}`, body: { labelSources: sources } },
      operator,
    );
    expect(put.status, put.body).toBe(201);
    expect(put.json().labelSources).toEqual(sources);
    const [first, second] = [`${reporting}-1`, `${reporting}-2`];
    for (const agentId of [first, second])
      expect(await heartbeat(agentApi, aFleet, agentId, reporting, a.manifestHash)).toBe(200);

    // The Java agent's manifest comes with its DESCRIBE's answer, its device with its heartbeats.
    const agent = await send({ method: "GET", path: `/api/v1/agents/${first}` }, operator);
    expect(agent.json().reportedLabels).toEqual({ os: "Linux", build: "2.3.0" });
    expect(await listed(`class=${reporting}&label=os=Linux`)).toEqual([first, second]);
    expect(await listed(`label=build=2.3.0&label=os`)).toEqual(expect.arrayContaining([first, second]));

    const set = await send(
      { method: "POST", path: `/api/v1/agents/${second}/labels`, body: { set: { os: "windows" } } },
      operator,
    );
    expect(set.status, set.body).toBe(200);
    expect(await listed(`class=${reporting}&label=os=Linux`)).toEqual([first]);
    expect(await listed(`class=${reporting}&label=os=windows`)).toEqual([second]);
  });
});

describe("class names", () => {
  /** A request whose path goes out byte for byte: fetch would resolve `..` and its encodings away. */
  function rawRequest(method: string, rawPath: string, token: string) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const outgoing = httpRequest(
        new URL(consoleApi.url),
        {
          method,
          path: rawPath,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        },
        (response) => {
          let body = "";
          response.on("data", (chunk: Buffer) => {
            body += chunk.toString();
          });
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      outgoing.on("error", reject);
      outgoing.end(method === "PUT" ? JSON.stringify({ description: "refused" }) : undefined);
    });
  }

  it.each([
    ["a NUL", "pumps%00"],
    ["a slash", "plant%2Fpumps"],
    ["a parent directory", "%2E%2E"],
    ["a space", "edge%20gateways"],
    ["a colon", "t%3Apumps"],
    ["129 characters", "c".repeat(129)],
  ])("are refused with 400 when they hold %s, on every route that takes one", async (_label, encoded) => {
    const operator = await consoleApi.token({ tenant: a.tenant, role: "operator" });
    for (const [method, rawPath] of [
      ["PUT", `/api/v1/classes/${encoded}`],
      ["GET", `/api/v1/classes/${encoded}`],
      ["GET", `/api/v1/classes/${encoded}/flows`],
      ["GET", `/api/v1/agents?class=${encoded}`],
      ["GET", `/api/v1/rollouts?className=${encoded}`],
    ] as const) {
      const response = await rawRequest(method, rawPath, operator);
      expect(response.status, `${method} ${rawPath}`).toBe(400);
      isError(JSON.parse(response.body), "invalid_request");
    }
  });

  it("keep working as before when valid", async () => {
    const operator = await consoleApi.token({ tenant: a.tenant, role: "operator" });
    for (const name of ["gateways", "edge.gw_2-a", "0", "A".repeat(128)]) {
      const response = await send(
        { method: "PUT", path: `/api/v1/classes/${name}`, body: { description: "kept" } },
        operator,
      );
      expect([200, 201], response.body).toContain(response.status);
      expect(response.json().name).toBe(name);
    }
  });

  it("reported by an agent that are invalid are ignored: the heartbeat gets 200 and the agent joins the default class", async () => {
    const agentId = newId("classless");
    expect(await heartbeat(agentApi, aFleet, agentId, "plant/pumps", a.manifestHash)).toBe(200);
    const agent = await send({ method: "GET", path: `/api/v1/agents/${agentId}` }, a.adminToken);
    expect(agent.json()).toMatchObject({ agentId, agentClass: "default" });
    // A known agent keeps its class when it reports an invalid one.
    expect(await heartbeat(agentApi, aFleet, agentId, a.className, a.manifestHash)).toBe(200);
    expect(await heartbeat(agentApi, aFleet, agentId, "..", a.manifestHash)).toBe(200);
    const again = await send({ method: "GET", path: `/api/v1/agents/${agentId}` }, a.adminToken);
    expect(again.json()).toMatchObject({ agentId, agentClass: a.className });
  });
});

describe("tenant settings", () => {
  it("are read by every role, changed field by field by admins, unset by null, and each tenant's own", async () => {
    const request = async (tenant: SeededTenant, role: Role, method: "GET" | "PUT", body?: unknown) =>
      consoleApi.request(method, "/api/v1/settings", {
        token: await consoleApi.token({ tenant: tenant.tenant, role }),
        body,
      });
    await request(b, "admin", "PUT", { cleanUpAfterDays: 60 });
    const set = await request(a, "admin", "PUT", { cleanUpAfterDays: 7 });
    expect(set.status).toBe(200);
    expect(set.json()).toEqual({ cleanUpAfterDays: 7, updatedAt: expect.any(String) });
    expect((await request(a, "viewer", "GET")).json()).toMatchObject({ cleanUpAfterDays: 7 });
    expect((await request(a, "admin", "PUT", {})).json()).toMatchObject({ cleanUpAfterDays: 7 });
    expect((await request(a, "operator", "PUT", { cleanUpAfterDays: 1 })).status).toBe(403);
    expect((await request(a, "admin", "PUT", { cleanUpAfterDays: 0 })).status).toBe(400);
    expect((await request(a, "viewer", "GET")).json()).toMatchObject({ cleanUpAfterDays: 7 });
    const unset = await request(a, "admin", "PUT", { cleanUpAfterDays: null });
    expect(unset.json()).toEqual({ updatedAt: expect.any(String) });
    expect((await request(b, "viewer", "GET")).json()).toMatchObject({ cleanUpAfterDays: 60 });
    await request(b, "admin", "PUT", { cleanUpAfterDays: null });
  });

  it("keep the time zone of the classes' maintenance windows as Intl names it, and refuse one it does not know", async () => {
    const token = await consoleApi.token({ tenant: a.tenant, role: "admin" });
    const put = (body: unknown) => consoleApi.request("PUT", "/api/v1/settings", { token, body });
    expect((await put({ timeZone: "america/new_york" })).json()).toMatchObject({
      timeZone: "America/New_York",
    });
    expect((await put({ timeZone: "Mars/Olympus_Mons" })).status).toBe(400);
    expect((await put({ timeZone: null })).json()).not.toHaveProperty("timeZone");
    const windows = (maintenanceWindows: unknown) =>
      consoleApi.request("PUT", `/api/v1/classes/${a.className}`, { token, body: { maintenanceWindows } });
    expect((await windows([{ days: ["sun"], start: "25:00", durationMinutes: 60 }])).status).toBe(400);
    const set = await windows([{ days: ["sat", "sun"], start: "02:00", durationMinutes: 240 }]);
    expect(set.json()).toMatchObject({
      maintenanceWindows: [{ days: ["sat", "sun"], start: "02:00", durationMinutes: 240 }],
    });
    expect((await windows([])).json()).not.toHaveProperty("maintenanceWindows");
  });
});

describe("classes, manifests and the fleet summary", () => {
  it("count the seeded agents and serve their binary's manifest summarised and raw", async () => {
    const token = await consoleApi.token({ tenant: a.tenant, role: "viewer" });
    const klass = await consoleApi.request("GET", `/api/v1/classes/${a.className}`, { token });
    expect(klass.json()).toMatchObject({
      name: a.className,
      heartbeatIntervalSeconds: 600,
      countsFrom: "cache",
    });
    const list = await consoleApi.request("GET", "/api/v1/manifests", { token });
    expect(list.json().items).toEqual([expect.objectContaining({ manifestId: a.manifestId })]);
    const summary = await consoleApi.request("GET", `/api/v1/manifests/${a.manifestId}`, { token });
    expect(summary.json()).toMatchObject({ manifestId: a.manifestId, agentType: "minifi-java" });
    expect((summary.json().processorTypes as string[]).length).toBeGreaterThan(0);
    const raw = await consoleApi.request("GET", `/api/v1/manifests/${a.manifestId}/content`, { token });
    expect(raw.json()).toMatchObject({ agentType: "minifi-java" });
    // The agent's own hash, its binary, and its own operations.
    const agent = await consoleApi.request("GET", `/api/v1/agents/${a.agentIds[0]}`, { token });
    expect(agent.json()).toMatchObject({
      manifestHash: a.manifestHash,
      manifestId: a.manifestId,
      supportedOperations: [
        { type: "DESCRIBE", properties: { MANIFEST: {} } },
        { type: "TRANSFER", properties: { DEBUG: {} } },
      ],
    });
    const running = await consoleApi.request("GET", `/api/v1/agents?manifestId=${a.manifestId}`, { token });
    expect((running.json().items as { agentId: string }[]).map((item) => item.agentId)).toEqual(
      expect.arrayContaining(a.agentIds),
    );
    const fleet = await consoleApi.request("GET", "/api/v1/fleet/summary", { token });
    const series = fleet.json().heartbeatsPerMinute as { count: number }[] | null;
    expect(fleet.json().agents).toMatchObject({ online: expect.any(Number) });
    expect(series).toHaveLength(15);
  });
});

/**
 * Groups end to end on the local stack: agents of two binaries register through the agent API as the real
 * ones do (a C++ agent's full heartbeat carries its manifest; a Java agent answers the DESCRIBE MANIFEST
 * Beacon asks of it), and the console's groups pick them by what their binaries can run, their labels, their
 * class and their presence, as they are when read.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cppAgentOf } from "../../scripts/common/c2-examples.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { heartbeat } from "../../scripts/test-support/console-seed.js";
import { AgentRoutes } from "../core/c2/routes.js";

/** What the C++ example binary lists in its minifi-kafka bundle 1.0.0; the Java example's lists no Kafka. */
const PUBLISH_KAFKA = {
  kind: "processor",
  type: "org.apache.nifi.minifi.processors.PublishKafka",
  artifact: "minifi-kafka",
  version: { atLeast: "1.0.0" },
};
/** What the Java example binary lists in nifi-standard-nar 2.3.0; the C++ one's GenerateFlowFile is another type. */
const GENERATE_FLOW_FILE = {
  kind: "processor",
  type: "org.apache.nifi.processors.standard.GenerateFlowFile",
  group: "org.apache.nifi",
  version: { atLeast: "2.0.0", below: "3.0.0" },
};

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let fleet: string;
let operator: string;
const gateways = "gateways";
const probes = "probes";
let cppAgents: string[];
let javaAgents: string[];

/** Registers a C++ agent of the example's build with its full heartbeat, the manifest in it. */
async function registerCpp(agentId: string) {
  const response = await agentApi.post(AgentRoutes.heartbeat.path, cppAgentOf(agentId, gateways).full(), {
    certificate: fleet,
  });
  expect(response.status, response.body).toBe(200);
}

const send = (method: string, path: string, body?: unknown) =>
  consoleApi.request(method, `/api/v1${path}`, { token: operator, body });

async function createGroup(name: string, query: Record<string, unknown>) {
  const created = await send("POST", "/groups", { name, query });
  expect(created.status, created.body).toBe(201);
  return created.json();
}

/** Every member of the group, page after page of `limit`, and how many pages that took. */
async function membersOf(name: string, limit = 100) {
  const members: string[] = [];
  let pages = 0;
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    const page = await send("GET", `/groups/${name}/agents?${query}`);
    expect(page.status, page.body).toBe(200);
    const body = page.json() as { items: { agentId: string }[]; nextCursor?: string };
    members.push(...body.items.map((item) => item.agentId));
    cursor = body.nextCursor;
    pages++;
  } while (cursor !== undefined);
  return { members, pages };
}

/** The group's members counted now (`count=live`): no counting pass runs beside this console API. */
async function memberCount(name: string): Promise<number> {
  const group = await send("GET", `/groups/${name}?count=live`);
  expect(group.status, group.body).toBe(200);
  return group.json().memberCount as number;
}

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  tenant = `groups-${randomUUID().slice(0, 8)}`;
  fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  operator = await consoleApi.token({ tenant, role: "operator" });
  cppAgents = [1, 2].map((index) => `${tenant}-gateway-${index}`);
  javaAgents = [1, 2].map((index) => `${tenant}-probe-${index}`);
  for (const agentId of cppAgents) await registerCpp(agentId);
  for (const agentId of javaAgents)
    expect(await heartbeat(agentApi, fleet, agentId, probes, `${tenant}-java`)).toBe(200);
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

describe("a group by what agents can run", () => {
  it("picks exactly the agents whose binary lists the processor, and an agent that registers later joins it", async () => {
    const created = await createGroup("kafka-publishers", { components: [PUBLISH_KAFKA] });
    expect(created).toMatchObject({ name: "kafka-publishers", query: { components: [PUBLISH_KAFKA] } });
    expect(created.memberCount).toBeUndefined();
    expect(await memberCount("kafka-publishers")).toBe(2);
    expect((await membersOf("kafka-publishers")).members).toEqual(cppAgents);

    await createGroup("java-generators", { components: [GENERATE_FLOW_FILE] });
    expect((await membersOf("java-generators")).members).toEqual(javaAgents);
    // A bundle version the binary's is not: no member.
    await createGroup("kafka-2", { components: [{ ...PUBLISH_KAFKA, version: { atLeast: "2.0.0" } }] });
    expect(await memberCount("kafka-2")).toBe(0);
    expect((await membersOf("kafka-2")).members).toEqual([]);

    const newcomer = `${tenant}-gateway-3`;
    await registerCpp(newcomer);
    expect(await memberCount("kafka-publishers")).toBe(3);
    expect((await membersOf("kafka-publishers")).members).toEqual([...cppAgents, newcomer]);
    expect((await membersOf("java-generators")).members).toEqual(javaAgents);
  });

  it("pages through its members with a cursor, each once", async () => {
    const { members, pages } = await membersOf("kafka-publishers", 2);
    expect(pages).toBe(2);
    expect(members).toEqual([...cppAgents, `${tenant}-gateway-3`]);
  });
});

describe("a group by label, class and presence", () => {
  it("keeps an agent while its label holds, and lets it go when the label goes", async () => {
    const [labelled] = javaAgents as [string];
    await createGroup("north", { labels: ["site=north"] });
    expect(await memberCount("north")).toBe(0);
    const set = await send("POST", `/agents/${labelled}/labels`, { set: { site: "north" } });
    expect(set.status, set.body).toBe(200);
    expect(await memberCount("north")).toBe(1);
    expect((await membersOf("north")).members).toEqual([labelled]);
    const removed = await send("POST", `/agents/${labelled}/labels`, { remove: ["site"] });
    expect(removed.status, removed.body).toBe(200);
    expect((await membersOf("north")).members).toEqual([]);
  });

  it("picks a class's agents, and those of it seen lately or silent long", async () => {
    await createGroup("all-probes", { classes: [probes] });
    expect(await memberCount("all-probes")).toBe(2);
    expect((await membersOf("all-probes")).members).toEqual(javaAgents);
    await createGroup("both", { classes: [probes, gateways], agentType: "cpp" });
    expect(await memberCount("both")).toBe(3);

    await createGroup("gateways-online", { classes: [gateways], status: "online", seenWithinMinutes: 10 });
    expect(await memberCount("gateways-online")).toBe(3);
    expect((await membersOf("gateways-online")).members).toHaveLength(3);
    await createGroup("silent-for-an-hour", { silentForMinutes: 60 });
    expect(await memberCount("silent-for-an-hour")).toBe(0);
    expect((await membersOf("silent-for-an-hour")).members).toEqual([]);
  });

  it("is replaced by PUT, listed by name without counts, and deleted", async () => {
    await createGroup("changing", { classes: [probes] });
    const put = await send("PUT", "/groups/changing", {
      description: "gateways now",
      query: { classes: [gateways] },
    });
    expect(put.status, put.body).toBe(200);
    expect(put.json()).toMatchObject({ description: "gateways now", query: { classes: [gateways] } });
    expect(await memberCount("changing")).toBe(3);
    const listed = await send("GET", "/groups");
    expect(listed.status).toBe(200);
    const items = listed.json().items as { name: string; memberCount?: number }[];
    expect(items.map((item) => item.name)).toContain("changing");
    expect(items.every((item) => item.memberCount === undefined)).toBe(true);
    expect((await send("DELETE", "/groups/changing")).status).toBe(200);
    expect((await send("GET", "/groups/changing")).status).toBe(404);
  });
});

describe("groups refused", () => {
  it("a second group of a name is 409", async () => {
    await createGroup("twice", {});
    const again = await send("POST", "/groups", { name: "twice", query: { classes: [probes] } });
    expect(again.status).toBe(409);
    expect(again.json().error).toMatchObject({ code: "group_exists" });
    expect((await send("GET", "/groups/twice")).json().query).toEqual({});
  });

  it.each([
    ["an unknown criterion", { name: "bad-field", query: { colour: "red" } }],
    ["no query", { name: "bad-no-query" }],
    ["a name no class could have", { name: "no such name!", query: {} }],
    ["an empty version range", { name: "bad-range", query: { agentVersion: { atLeast: "3", below: "2" } } }],
    [
      "a version that is none",
      { name: "bad-version", query: { components: [{ ...PUBLISH_KAFKA, version: { atLeast: "x" } }] } },
    ],
    ["a malformed label term", { name: "bad-label", query: { labels: ["bad key!"] } }],
    ["an unknown status", { name: "bad-status", query: { status: "asleep" } }],
    ["a component of no kind", { name: "bad-kind", query: { components: [{ kind: "funnel", type: "x" }] } }],
  ])("%s is 400, and makes no group", async (_case, body) => {
    const refused = await send("POST", "/groups", body);
    expect(refused.status, refused.body).toBe(400);
    expect(refused.json().error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    const name = (body as { name: string }).name;
    expect((await send("GET", `/groups/${encodeURIComponent(name)}`)).status).not.toBe(200);
  });

  it("a group that is not there is 404 on every route that names it", async () => {
    for (const [method, path, body] of [
      ["GET", "/groups/missing", undefined],
      ["GET", "/groups/missing/agents", undefined],
      ["PUT", "/groups/missing", { query: {} }],
      ["DELETE", "/groups/missing", undefined],
    ] as const) {
      expect((await send(method, path, body)).status, `${method} ${path}`).toBe(404);
    }
  });
});

describe("a group's settings", () => {
  /** A weekly window three days from now (UTC, the tenant's zone by default): closed now. */
  const closedNow = () => {
    const days = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
    return [{ days: [days[(new Date().getUTCDay() + 3) % 7]], start: "00:00", durationMinutes: 60 }];
  };

  it("keeps the operations of its members outside its windows, not those of other agents of their class", async () => {
    const [other, member] = javaAgents as [string, string];
    const labelled = await send("POST", `/agents/${member}/labels`, { set: { shift: "weekend" } });
    expect(labelled.status, labelled.body).toBe(200);
    const created = await send("POST", "/groups", {
      name: "weekend-shift",
      query: { labels: ["shift=weekend"] },
      requireApproval: true,
      maintenanceWindows: closedNow(),
    });
    expect(created.status, created.body).toBe(201);
    const read = await send("GET", "/groups/weekend-shift?count=live");
    expect(read.json()).toMatchObject({
      requireApproval: true,
      maintenanceWindows: closedNow(),
      memberCount: 1,
    });

    const describeManifest = (agentId: string) =>
      send("POST", "/operations", {
        agentId,
        operation: "DESCRIBE",
        operand: "MANIFEST",
        outsideWindow: "refuse",
      });
    const refused = await describeManifest(member);
    expect(refused.status, refused.body).toBe(409);
    expect(refused.json()).toMatchObject({
      error: { code: "outside_window", message: expect.stringContaining("group weekend-shift") },
    });
    const sent = await describeManifest(other);
    expect(sent.status, sent.body).toBe(201);

    // Without windows, the group keeps nothing back.
    const put = await send("PUT", "/groups/weekend-shift", { query: { labels: ["shift=weekend"] } });
    expect(put.json()).toMatchObject({ requireApproval: false, maintenanceWindows: [] });
    expect((await describeManifest(member)).status).toBe(201);
  });

  it("refuses windows a class could not have", async () => {
    const refused = await send("POST", "/groups", {
      name: "bad-windows",
      query: {},
      maintenanceWindows: [{ days: ["mon"], start: "24:00", durationMinutes: 60 }],
    });
    expect(refused.status, refused.body).toBe(400);
  });
});

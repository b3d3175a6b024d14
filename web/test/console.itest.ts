/**
 * The web console in a real browser: Debian's Chromium driven by Playwright against `npm start` with
 * simulated agents, as an operator would use it. Every page is checked with axe-core and photographed at
 * a desktop and a phone width into `.beacon/screenshots/web-console/`.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevCertificates } from "../../scripts/local/certs.js";
import {
  receiverCertsDir,
  signatureOf,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../scripts/local/webhook-receiver.js";
import { javaParameterFlow } from "../../scripts/test-support/flow-fixtures.js";
import { type LocalStack, repositoryRoot, stopGroup } from "../../scripts/test-support/local-stack.js";
import { untilTrue } from "../../scripts/test-support/until.js";
import { FIRST_LOAD_BUDGET_BYTES, firstLoads } from "../tools/bundle-budget.js";
import {
  api,
  capture,
  expectAccessible,
  flowJson,
  newPage,
  pageProblems,
  sha256,
  signedIn,
  signIn,
  simulatedAgents,
  startConsole,
  stopConsole,
  untilRegistered,
} from "./console-harness.js";

const AGENT_CLASS = "gateways";
const AGENT_IDS = ["gateways-agent-001", "gateways-agent-002", "gateways-agent-003"];

let stack: LocalStack;
/** An agent that heartbeats once and then stays quiet: what is queued for it stays queued. */
const IDLE_AGENT_ID = "idle-agent-001";
/** An HTTPS endpoint with the dev CA's certificate, which `npm start` lets event subscriptions deliver to. */
let receiver: WebhookReceiver;
let webUrl: string;

/** The operations page of one agent, its form open to create `kind` for that agent. */
async function openCreateForm(page: Page, agentId: string, kind: string): Promise<void> {
  await page.goto(`${webUrl}/operations?agentId=${agentId}`);
  await page.getByRole("heading", { name: "Operations", level: 1 }).waitFor();
  await page.getByText("Create operations").click();
  await page.getByLabel("one agent").check();
  await page.getByLabel("Agent id", { exact: true }).first().fill(agentId);
  await page.locator("select[name=kind]").selectOption(kind);
}

async function publish(page: Page, name: string, content: string): Promise<void> {
  const button = page.getByRole("button", { name: "Publish", exact: true });
  if (!(await button.isVisible())) await page.getByText("Publish a flow version").click();
  await page
    .getByLabel(/Flow file/)
    .setInputFiles({ name, mimeType: "application/json", buffer: Buffer.from(content) });
  await button.click();
  await page.getByText(`Published ${sha256(content)} (nifi-json).`).waitFor();
}

beforeAll(async () => {
  // A two-second sweeper moves rollouts along as fast as the agents heartbeat.
  ({ stack, webUrl } = await startConsole("web-console-test", { BEACON_SWEEPER_INTERVAL_SECONDS: "2" }));
  simulatedAgents(["--class", AGENT_CLASS, "--count", "3", "--interval", "2"]);
  simulatedAgents(["--class", "idle", "--count", "1", "--interval", "3600", "--prefix", "idle-agent-"]);
  // The certificates `npm start` made for this checkout; its functions trust their CA for deliveries.
  const { server } = await ensureDevCertificates(receiverCertsDir(path.join(repositoryRoot, ".beacon")));
  receiver = await startWebhookReceiver({
    cert: readFileSync(server.certPath, "utf8"),
    key: readFileSync(server.keyPath, "utf8"),
  });
  await untilRegistered(AGENT_CLASS, AGENT_IDS.length, { others: [IDLE_AGENT_ID] });
}, 300_000);

afterAll(async () => {
  await receiver?.close();
  await stopConsole();
}, 60_000);

describe("the web console", () => {
  let admin: Page;

  it("loads its first page within the JavaScript budget", async () => {
    const builtLoads = await firstLoads(path.join(stack.localDir, "web"));
    const largest = builtLoads[0];
    expect(largest).toBeDefined();
    // As served: what the browser fetched, compressed, from opening the console to the fleet page.
    const { context, page } = await newPage();
    const scripts: Promise<number>[] = [];
    page.on("requestfinished", (request) => {
      if (request.resourceType() === "script") {
        scripts.push(request.sizes().then((sizes) => sizes.responseBodySize));
      }
    });
    await page.goto(webUrl);
    await page.getByRole("heading", { name: "Beacon console" }).waitFor();
    await capture(page, "sign-in");
    await signIn(page, "viewer");
    await page.waitForLoadState("networkidle");
    const transferred = (await Promise.all(scripts)).reduce((sum, size) => sum + size, 0);
    await context.close();
    console.log(
      `first load: largest ${largest?.page} ${((largest?.gzipBytes ?? 0) / 1024).toFixed(1)} KB gzipped; ` +
        `sign-in to fleet fetched ${(transferred / 1024).toFixed(1)} KB of JavaScript in ${scripts.length} files`,
    );
    expect(largest?.gzipBytes).toBeLessThanOrEqual(FIRST_LOAD_BUDGET_BYTES);
    expect(transferred).toBeGreaterThan(0);
    expect(transferred).toBeLessThanOrEqual(FIRST_LOAD_BUDGET_BYTES);
  });

  it("signs an admin in locally and shows the fleet the agents registered", async () => {
    ({ page: admin } = await newPage());
    // Nobody signed in: the sign-in page, which returns to the page asked for.
    await admin.goto(`${webUrl}/agents?class=${AGENT_CLASS}`);
    await signIn(admin, "admin", "Agents");
    expect(admin.url()).toBe(`${webUrl}/agents?class=${AGENT_CLASS}`);
    await admin.getByRole("link", { name: "Fleet" }).click();
    await admin.getByRole("heading", { name: "Fleet", level: 1 }).waitFor();
    const classRow = admin.getByRole("row").filter({ has: admin.getByRole("link", { name: AGENT_CLASS }) });
    await classRow.waitFor();
    expect(await classRow.getByRole("cell").nth(1).textContent()).toBe(String(AGENT_IDS.length));
    await admin.getByRole("img", { name: /Heartbeats per minute/ }).waitFor();
    await capture(admin, "fleet");
  });

  it("charts the fleet's history per range and class, with its numbers as a table", async () => {
    // The stream consumer of `npm start` counts the simulated agents' heartbeats a few seconds after them.
    type History = { stepSeconds: number; points: { at: string; heartbeats?: number }[] };
    const heartbeatsIn = (history: History) =>
      history.points.reduce((total, { heartbeats = 0 }) => total + heartbeats, 0);
    await untilTrue(
      "the fleet history to count heartbeats",
      async () => {
        return heartbeatsIn((await api<History>(`/fleet/history?class=${AGENT_CLASS}`)).body) > 0;
      },
      120_000,
    );
    const { body } = await api<History>("/fleet/history");
    expect(body.stepSeconds).toBe(60);
    expect(body.points).toHaveLength(61);
    await admin.goto(`${webUrl}/`);
    await admin.getByRole("heading", { name: "Fleet", level: 1 }).waitFor();
    const history = admin.getByRole("region", { name: "History" });
    const figure = history.getByRole("figure");
    await figure.waitFor();
    expect(await figure.locator("figcaption").textContent()).toMatch(
      /^The whole fleet from .*: heartbeats \d+/,
    );
    await history
      .getByRole("img", { name: /^Heartbeats and agents seen per minute: Heartbeats at most [1-9]/ })
      .waitFor();
    await history.getByText("The numbers").click();
    const numbers = history.getByRole("region", { name: "Fleet history per minute" });
    await numbers.waitFor();
    expect(await numbers.getByRole("row").count()).toBeGreaterThan(1);
    await capture(admin, "fleet-history");

    const [dayRequest] = await Promise.all([
      admin.waitForRequest((request) => request.url().includes("/api/v1/fleet/history?")),
      history.getByLabel("Range").selectOption({ label: "Last 24 h" }),
    ]);
    const asked = new URL(dayRequest.url()).searchParams;
    expect(asked.get("step")).toBe("720");
    expect(Date.parse(asked.get("to") ?? "") - Date.parse(asked.get("from") ?? "")).toBe(24 * 3_600_000);
    await history.getByLabel("Class").selectOption(AGENT_CLASS);
    await history
      .getByRole("figure")
      .getByText(new RegExp(`^Class ${AGENT_CLASS} from `))
      .waitFor();
    await history.getByRole("heading", { name: "Agents gone offline and back online" }).waitFor();
    // A class's operations count in its own series too.
    await history.getByRole("heading", { name: "Operations done, failed and timed out" }).waitFor();
    // The range and class are the URL's: a reload (or a shared link) shows the same charts.
    await admin.waitForURL(`${webUrl}/?range=1440&class=${AGENT_CLASS}`);
    await admin.reload();
    await history
      .getByRole("figure")
      .getByText(new RegExp(`^Class ${AGENT_CLASS} from `))
      .waitFor();
    expect(await history.getByLabel("Range").inputValue()).toBe("1440");
    // The class's option comes with the tenant's classes, which may load after the charts: the select takes the
    // URL's class once it holds that option.
    const classSelect = history.getByLabel("Class");
    await untilTrue(
      `the Class select to show ${AGENT_CLASS}`,
      async () => (await classSelect.inputValue()) === AGENT_CLASS,
      10_000,
    );
  });

  it("lists agents with filters the URL keeps, and Back restores them", async () => {
    await admin.getByRole("link", { name: "Agents", exact: true }).click();
    await admin.getByRole("heading", { name: "Agents", level: 1 }).waitFor();
    await admin.getByLabel("Class").fill(AGENT_CLASS);
    await admin.getByRole("button", { name: "Apply filters" }).click();
    await admin.waitForURL(`${webUrl}/agents?class=${AGENT_CLASS}`);
    for (const agentId of AGENT_IDS) await admin.getByRole("link", { name: agentId }).waitFor();
    await capture(admin, "agents");
    await admin.getByLabel("Agent id or hostname contains").fill("agent-002");
    await admin.getByRole("button", { name: "Apply filters" }).click();
    await admin.waitForURL(/q=agent-002/);
    await admin.getByRole("link", { name: "gateways-agent-002" }).waitFor();
    await admin.getByRole("link", { name: "gateways-agent-001" }).waitFor({ state: "detached" });
    await admin.goBack();
    await admin.waitForURL(`${webUrl}/agents?class=${AGENT_CLASS}`);
    await admin.getByRole("link", { name: "gateways-agent-001" }).waitFor();
    expect(await admin.getByLabel("Agent id or hostname contains").inputValue()).toBe("");
    expect(await admin.getByLabel("Class").inputValue()).toBe(AGENT_CLASS);
    await admin.getByLabel("Seen within").selectOption("5m");
    await admin.getByRole("button", { name: "Apply filters" }).click();
    await admin.waitForURL(/seen=5m/);
    await admin.getByRole("link", { name: "gateways-agent-003" }).waitFor();
    await admin.getByLabel("Status").selectOption("offline");
    await admin.getByRole("button", { name: "Apply filters" }).click();
    await admin.getByText("No agent matches these filters").waitFor();
    // A shared link fills the form in too.
    await admin.goto(`${webUrl}/agents?class=${AGENT_CLASS}&status=offline&sort=-agentId`);
    await admin.getByText("No agent matches these filters").waitFor();
    expect(await admin.getByLabel("Status").inputValue()).toBe("offline");
    expect(await admin.getByLabel("Order").inputValue()).toBe("-agentId");
  });

  it("shows an agent's detail and queues an operation for it", async () => {
    await admin.goto(`${webUrl}/agents/gateways-agent-001`);
    await admin.getByRole("heading", { name: "gateways-agent-001", level: 1 }).waitFor();
    await admin.getByRole("heading", { name: "Identity and status" }).waitFor();
    await admin.getByText("online", { exact: true }).first().waitFor();
    await admin.getByRole("heading", { name: "Device" }).waitFor();
    await admin.getByRole("button", { name: "Ask for its manifest" }).click();
    await admin.getByText("Queued: the agent is asked for its manifest").waitFor();
    await admin.getByRole("cell", { name: "DESCRIBE MANIFEST" }).first().waitFor();
    await capture(admin, "agent");
  });

  it("sets and removes an agent's labels on its page, and the list shows and filters by them", async () => {
    await admin.goto(`${webUrl}/agents/gateways-agent-002`);
    const labels = admin.getByRole("region", { name: "Labels", exact: true });
    await labels.getByText("No label.").waitFor();
    for (const [key, value] of [
      ["site", "plant-7"],
      ["example.com/rack", "r12"],
    ] as const) {
      await labels.getByLabel("Label key").fill(key);
      await labels.getByLabel("Value").fill(value);
      await labels.getByRole("button", { name: "Set label" }).click();
      await labels.getByRole("cell", { name: key, exact: true }).waitFor();
    }
    await labels.getByLabel("Label key").fill("bad key");
    await labels.getByRole("button", { name: "Set label" }).click();
    await labels.getByRole("alert").filter({ hasText: 'Label key "bad key" is not' }).waitFor();
    await labels.getByRole("button", { name: "Remove label example.com/rack" }).click();
    await labels.getByRole("cell", { name: "example.com/rack", exact: true }).waitFor({ state: "detached" });
    expect((await api<{ labels: unknown }>("/agents/gateways-agent-002")).body.labels).toEqual({
      site: "plant-7",
    });
    await capture(admin, "agent-labels");

    await admin.goto(`${webUrl}/agents?class=${AGENT_CLASS}`);
    await admin.getByLabel("Labels (key=value or key, commas between)").fill("site=plant-7");
    await admin.getByRole("button", { name: "Apply filters" }).click();
    await admin.waitForURL(`${webUrl}/agents?class=${AGENT_CLASS}&label=site%3Dplant-7`);
    const rows = admin.getByRole("region", { name: "Agents", exact: true }).getByRole("row");
    await rows
      .filter({ hasText: "gateways-agent-002" })
      .getByRole("link", { name: "site=plant-7" })
      .waitFor();
    expect(await rows.count()).toBe(2);
    // A label in the list links to the agents that carry it.
    await rows.getByRole("link", { name: "site=plant-7" }).click();
    await admin.waitForURL(`${webUrl}/agents?label=site%3Dplant-7`);
    await admin.getByRole("link", { name: "gateways-agent-002" }).waitFor();
    await admin.goto(`${webUrl}/agents?class=${AGENT_CLASS}&label=site%3Dplant-8`);
    await admin.getByText("No agent matches these filters").waitFor();
  });

  it("creates a group from a JSON query, shows its live member count and members, changes it and deletes it", async () => {
    await admin.getByRole("link", { name: "Groups", exact: true }).click();
    await admin.getByRole("heading", { name: "Groups", level: 1 }).waitFor();
    await admin.getByText("Create a group").click();
    await admin.getByLabel("Name").fill("web-gateways");
    await admin.getByLabel(/^Query/).fill(JSON.stringify({ classes: [AGENT_CLASS] }));
    await admin.getByRole("button", { name: "Create group" }).click();
    await admin.waitForURL(`${webUrl}/groups/web-gateways`);
    const members = admin.getByRole("region", { name: "Members", exact: true });
    for (const agentId of AGENT_IDS) await members.getByRole("link", { name: agentId }).waitFor();
    const counted = (await api<{ memberCount: number }>("/groups/web-gateways?count=live")).body.memberCount;
    expect(counted).toBeGreaterThanOrEqual(AGENT_IDS.length);
    /** The member count the group's page shows. */
    const shownCount = (count: number) => admin.locator("dd strong", { hasText: new RegExp(`^${count}$`) });
    // The page shows the counting pass's count, or "counting" before one: counting now is the operator's ask.
    await admin.getByRole("button", { name: "Count now" }).click();
    await shownCount(counted).waitFor();
    await capture(admin, "group");

    await admin.getByText("Change the query").click();
    const query = admin.getByLabel(/^Query/);
    await query.fill("{ classes:");
    await admin.getByRole("button", { name: "Save" }).click();
    await admin.getByRole("alert").filter({ hasText: "The query is not JSON" }).waitFor();
    await query.fill(JSON.stringify({ classes: [AGENT_CLASS], labels: ["no-such-label"] }));
    await admin.getByRole("button", { name: "Save" }).click();
    await admin.getByText("No agent matches the group's query now.").waitFor();
    await shownCount(0).waitFor();

    await admin.getByRole("button", { name: "Delete group" }).click();
    await admin.getByRole("button", { name: "Delete web-gateways" }).click();
    await admin.waitForURL(`${webUrl}/groups`);
    await admin.getByText("No group yet.", { exact: false }).waitFor();
    expect((await api("/groups/web-gateways")).status).toBe(404);
  });

  it("publishes flow versions byte for byte and shows whether the class's agents can run them", async () => {
    await admin.getByRole("link", { name: "Classes and flows" }).click();
    await admin.getByRole("heading", { name: "Classes", level: 1 }).waitFor();
    await admin.getByRole("link", { name: AGENT_CLASS, exact: true }).click();
    await admin.getByRole("heading", { name: AGENT_CLASS, level: 1 }).waitFor();
    await admin.getByText("No flow version yet").waitFor();
    // The simulated agents run a flow of their own, which Beacon does not hold: it offers to adopt it.
    const running = admin.getByRole("region", { name: "Running flows", exact: true });
    await running.getByRole("row", { name: new RegExp(`initial-flow ${AGENT_IDS.length}`) }).waitFor();
    await running.getByRole("button", { name: "Adopt initial-flow" }).waitFor();
    await capture(admin, "class");

    const runnable = flowJson(AGENT_CLASS, "org.apache.nifi.minifi.processors.GenerateFlowFile");
    await publish(admin, "flow.json", runnable);
    await admin.getByText(`All ${AGENT_IDS.length} agents of the class can run this flow.`).waitFor();
    expect(admin.url()).toContain(`flow=${sha256(runnable)}`);
    // The simulated agents run one binary: one row, named by the binary's identity.
    const { body: agent } = await api<{ manifestId: string }>(`/agents/${AGENT_IDS[0]}`);
    await admin.getByRole("cell", { name: agent.manifestId.slice(0, 12) }).waitFor();

    const unrunnable = flowJson(AGENT_CLASS, "com.example.processors.NotOnAnyAgent");
    await publish(admin, "needs-more.json", unrunnable);
    await admin
      .getByText(`${AGENT_IDS.length} of ${AGENT_IDS.length} agents cannot run this flow.`)
      .waitFor();
    await admin.getByRole("cell", { name: "com.example.processors.NotOnAnyAgent" }).waitFor();
    await admin.getByRole("link", { name: new RegExp(`validation report of ${sha256(runnable)}`) }).waitFor();
    await capture(admin, "class-validation");
    // The report of the version before, from the URL Back returns to.
    await admin.goBack();
    await admin.getByText(`All ${AGENT_IDS.length} agents of the class can run this flow.`).waitFor();
  });

  it("starts a rollout of a version with a plan and follows it live until every agent is healthy", async () => {
    const version = sha256(flowJson(AGENT_CLASS, "org.apache.nifi.minifi.processors.GenerateFlowFile"));
    await admin.goto(`${webUrl}/classes/${AGENT_CLASS}?flow=${version}`);
    await admin.getByRole("link", { name: /Start a rollout of/ }).click();
    await admin.getByRole("heading", { name: "Rollouts", level: 1 }).waitFor();
    expect(await admin.getByLabel("Class", { exact: true }).inputValue()).toBe(AGENT_CLASS);
    await admin.locator(`select[name=flowHash] option[value="${version}"]`).waitFor({ state: "attached" });
    expect(await admin.getByLabel("Flow version").inputValue()).toBe(version);
    await admin.getByLabel("Canary", { exact: true }).fill("1");
    await admin.getByLabel("Canary unit").selectOption("count");
    await admin.getByLabel("Batch size (agents)").fill("2");
    await admin.getByLabel("Between batches (s)").fill("0");
    await admin.getByLabel("Soak (s)").fill("2");
    await capture(admin, "rollout-start");
    await admin.getByRole("button", { name: "Start rollout" }).click();
    await admin.getByRole("heading", { name: /^Rollout /, level: 1 }).waitFor();
    const rolloutId = decodeURIComponent(admin.url().split("/rollouts/")[1] ?? "");
    await admin.getByText("following it live").waitFor();
    // The page reads the rollout again by itself: no reload here.
    await admin.locator(".verdict").getByText("completed", { exact: true }).waitFor({ timeout: 120_000 });
    for (const agentId of AGENT_IDS) {
      const row = admin.getByRole("row").filter({ has: admin.getByRole("link", { name: agentId }) });
      await row.getByText("healthy", { exact: true }).waitFor();
    }
    expect(await admin.getByText("following it live").count()).toBe(0);
    const { body } = await api<{ state: string; counts: { healthy: number } }>(`/rollouts/${rolloutId}`);
    expect(body).toMatchObject({ state: "completed", counts: { healthy: AGENT_IDS.length } });
    await capture(admin, "rollout");

    // A rollout's agents are paged: the URL keeps the API's cursor, here the one after its first agent.
    type Members = { items: { agentId: string }[]; nextCursor?: string };
    const { body: first } = await api<Members>(`/rollouts/${rolloutId}/agents?limit=1`);
    const { body: rest } = await api<Members>(
      `/rollouts/${rolloutId}/agents?cursor=${encodeURIComponent(first.nextCursor ?? "")}`,
    );
    await admin.goto(`${webUrl}/rollouts/${rolloutId}?cursor=${encodeURIComponent(first.nextCursor ?? "")}`);
    const members = admin.getByRole("region", { name: "The rollout's agents" });
    await members.getByRole("link", { name: rest.items[0]?.agentId, exact: true }).waitFor();
    expect(await members.getByRole("row").count()).toBe(rest.items.length + 1);
    await admin
      .getByRole("navigation", { name: "Pages of the rollout's agents" })
      .getByRole("link", { name: "First page" })
      .click();
    await members.getByRole("link", { name: first.items[0]?.agentId, exact: true }).waitFor();
  }, 240_000);

  it("shows why the API refuses a rollout, and pauses, resumes and aborts one", async () => {
    const version = sha256(flowJson(AGENT_CLASS, "com.example.processors.NotOnAnyAgent"));
    await admin.goto(`${webUrl}/rollouts?className=${AGENT_CLASS}&flow=${version}`);
    await admin.locator(`select[name=flowHash] option[value="${version}"]`).waitFor({ state: "attached" });
    await admin.getByLabel("Canary", { exact: true }).fill("1");
    await admin.getByLabel("Canary unit").selectOption("count");
    // A soak longer than the test: the canary stays under way until it is aborted.
    await admin.getByLabel("Soak (s)").fill("3600");
    await admin.getByRole("button", { name: "Start rollout" }).click();
    await admin
      .getByRole("alert")
      .filter({ hasText: /cannot run|incompatible|lack/i })
      .waitFor();
    await admin.getByLabel("Start even if some agents' manifests lack types the flow uses").check();
    await admin.getByRole("button", { name: "Start rollout" }).click();
    await admin.getByRole("heading", { name: /^Rollout /, level: 1 }).waitFor();
    const verdict = admin.locator(".verdict");
    await verdict.getByText("canary", { exact: true }).waitFor();
    await admin.getByRole("button", { name: "Pause" }).click();
    await verdict.getByText("paused", { exact: true }).waitFor();
    await admin.getByRole("button", { name: "Resume" }).click();
    await verdict.getByText("canary", { exact: true }).waitFor();
    await admin.getByRole("button", { name: "Abort…" }).click();
    await admin.getByRole("button", { name: "Abort and return its agents to the previous version" }).click();
    await verdict.getByText("aborted", { exact: true }).waitFor({ timeout: 60_000 });
    expect(await admin.getByRole("button", { name: /Pause|Resume|Abort/ }).count()).toBe(0);
  });

  it("holds a rollout of a class that requires approval in the queue until a second operator approves it", async () => {
    const APPROVED = "approved";
    const json = { "content-type": "application/json" };
    // A class without agents: once started, its rollout completes at the sweeper's next look.
    expect((await api(`/classes/${APPROVED}`, { method: "PUT", headers: json, body: "{}" })).status).toBe(
      201,
    );
    const versions = ["GenerateFlowFile", "LogAttribute"].map((name) =>
      flowJson(AGENT_CLASS, `org.apache.nifi.minifi.processors.${name}`),
    );
    for (const content of versions) {
      const published = await api(`/classes/${APPROVED}/flows`, {
        method: "POST",
        headers: json,
        body: content,
      });
      expect(published.status).toBe(201);
    }
    await admin.goto(`${webUrl}/classes/${APPROVED}`);
    await admin.getByRole("button", { name: "Require a second operator's approval" }).click();
    await admin.getByText("wait for an operator other than their creator to approve them").waitFor();

    // The operator (dev-operator) creates it; the admin (dev-admin) is the second pair of eyes.
    const { context, page: operator } = await newPage();
    await operator.goto(webUrl);
    await signIn(operator, "operator");
    const startRollout = async (content: string, startAt?: string) => {
      await operator.goto(`${webUrl}/rollouts?className=${APPROVED}&flow=${sha256(content)}`);
      await operator
        .locator(`select[name=flowHash] option[value="${sha256(content)}"]`)
        .waitFor({ state: "attached" });
      if (startAt !== undefined) await operator.getByLabel(/^Start at \(optional, .+ time\)/).fill(startAt);
      await operator.getByRole("button", { name: "Start rollout" }).click();
      await operator.getByRole("heading", { name: /^Rollout /, level: 1 }).waitFor();
      return decodeURIComponent(operator.url().split("/rollouts/")[1] ?? "");
    };
    const rolloutId = await startRollout(versions[0] as string);
    await operator.locator(".verdict").getByText("awaiting_approval", { exact: true }).waitFor();
    await operator.getByText("Needs another operator: you created it.").waitFor();
    expect(await operator.getByRole("button", { name: "Approve" }).count()).toBe(0);
    await operator.getByRole("link", { name: "Approvals (1)" }).click();
    const queued = (page: Page) =>
      page.getByRole("row").filter({ has: page.getByRole("link", { name: rolloutId, exact: true }) });
    await queued(operator).getByText("Needs another operator").waitFor();
    expect(await queued(operator).getByRole("cell", { name: "dev-operator", exact: true }).count()).toBe(1);
    expect(await queued(operator).getByRole("button", { name: "Approve" }).count()).toBe(0);

    await admin.goto(`${webUrl}/approvals`);
    await queued(admin).getByRole("button", { name: "Approve" }).waitFor();
    await capture(admin, "approvals");
    await queued(admin).getByRole("button", { name: "Approve" }).click();
    await admin.getByText("No rollout awaits approval.").waitFor();

    // Approved, it started: the operator's page follows it to its end.
    await operator.goto(`${webUrl}/rollouts/${encodeURIComponent(rolloutId)}`);
    await operator.getByText(/^by dev-admin, /).waitFor();
    await operator.getByRole("link", { name: "Approvals", exact: true }).waitFor();
    await operator.locator(".verdict").getByText("completed", { exact: true }).waitFor({ timeout: 60_000 });

    // One with a start time, in the browser's zone: the API gets the same instant in UTC. Refused, it ends.
    const tomorrow = new Date(Date.now() + 86_400_000);
    const startAt = `${tomorrow.toISOString().slice(0, 10)}T09:30`;
    // The class is on the first version now: the next rollout brings the second.
    const waitingId = await startRollout(versions[1] as string, startAt);
    const expected = await operator.evaluate((value) => new Date(value).toISOString(), startAt);
    const { body: waiting } = await api<{ state: string; startAt: string }>(`/rollouts/${waitingId}`);
    expect(waiting).toMatchObject({ state: "awaiting_approval", startAt: expected });
    await operator.getByText("Start time", { exact: true }).waitFor();
    await admin.goto(`${webUrl}/rollouts/${encodeURIComponent(waitingId)}`);
    await admin.getByRole("button", { name: "Refuse…" }).click();
    await admin.getByLabel("Why (optional)").fill("Not this week");
    await admin.getByRole("button", { name: "Refuse it" }).click();
    await admin.locator(".verdict").getByText("Not this week", { exact: false }).waitFor();
    await admin.locator(".verdict").getByText("refused", { exact: true }).waitFor();
    await admin.getByText("by dev-admin", { exact: true }).waitFor();
    await context.close();
  }, 180_000);

  it("starts a continuous rollout to a group's members, shows its target and follows until it is finished", async () => {
    const FOLLOWED = "followed";
    const GROUP = "followed-edge";
    const json = { "content-type": "application/json" };
    // A class without agents: its rollout passes it at once and goes on following its group.
    expect((await api(`/classes/${FOLLOWED}`, { method: "PUT", headers: json, body: "{}" })).status).toBe(
      201,
    );
    const content = flowJson(AGENT_CLASS, "org.apache.nifi.minifi.processors.GenerateFlowFile");
    const published = await api(`/classes/${FOLLOWED}/flows`, {
      method: "POST",
      headers: json,
      body: content,
    });
    expect(published.status).toBe(201);
    const group = { name: GROUP, query: { classes: [FOLLOWED] } };
    expect(
      (await api("/groups", { method: "POST", headers: json, body: JSON.stringify(group) })).status,
    ).toBe(201);

    await admin.goto(`${webUrl}/rollouts?className=${FOLLOWED}&flow=${sha256(content)}`);
    await admin
      .locator(`select[name=flowHash] option[value="${sha256(content)}"]`)
      .waitFor({ state: "attached" });
    const continuous = admin.getByLabel(/^Continuous/);
    expect(await continuous.isDisabled()).toBe(true);
    // Label terms that are only commas say so, before anything is asked of the API.
    await admin.getByLabel("the class's agents with some labels").check();
    await admin.getByLabel("Labels (key=value or key, commas between)").fill(" , ");
    await admin.getByRole("button", { name: "Start rollout" }).click();
    await admin.getByRole("alert").filter({ hasText: "Name at least one label term" }).waitFor();

    await admin.getByLabel("the class's members of a group").check();
    await admin.locator("select[name=group] option", { hasText: GROUP }).waitFor({ state: "attached" });
    await admin.locator("select[name=group]").selectOption(GROUP);
    await continuous.check();
    await capture(admin, "rollout-start-group");
    await admin.getByRole("button", { name: "Start rollout" }).click();
    await admin.getByRole("heading", { name: /^Rollout /, level: 1 }).waitFor();
    const rolloutId = decodeURIComponent(admin.url().split("/rollouts/")[1] ?? "");
    const target = admin.locator("dd", { hasText: `the class's members of group ${GROUP}` });
    await target.getByText("continuous: it keeps reaching agents that join", { exact: false }).waitFor();
    await target.getByRole("link", { name: GROUP, exact: true }).waitFor();
    const verdict = admin.locator(".verdict");
    await verdict.getByText("following", { exact: true }).waitFor({ timeout: 60_000 });
    const { body } = await api<{ group: string; continuous: boolean }>(`/rollouts/${rolloutId}`);
    expect(body).toMatchObject({ group: GROUP, continuous: true });

    await admin.getByRole("button", { name: "Finish" }).click();
    await verdict.getByText("completed", { exact: true }).waitFor();
    expect((await api(`/groups/${GROUP}`, { method: "DELETE" })).status).toBe(200);
  }, 120_000);

  it("queues operations for a selector and follows them to done, and cancels one still queued", async () => {
    await admin.getByRole("link", { name: "Operations", exact: true }).click();
    await admin.getByRole("heading", { name: "Operations", level: 1 }).waitFor();
    await admin.getByText("Create operations").click();
    await admin.getByLabel("every agent of a class a selector picks").check();
    await admin.getByLabel("Class", { exact: true }).fill(AGENT_CLASS);
    await admin.getByLabel("Status").first().selectOption("online");
    await admin.locator("select[name=kind]").selectOption("UPDATE PROPERTIES");
    await admin.getByLabel("Properties, one name=value a line").fill("nifi.log.level=DEBUG");
    await admin.getByRole("button", { name: "Queue operations" }).click();
    await admin.getByText(`Queued ${AGENT_IDS.length} operations`).waitFor();
    // The list follows them by itself until the agents have acknowledged every one.
    for (const agentId of AGENT_IDS) {
      const row = admin
        .getByRole("row")
        .filter({ hasText: "UPDATE PROPERTIES" })
        .filter({ has: admin.getByRole("link", { name: agentId }) });
      await row.getByText("done", { exact: true }).waitFor();
    }
    await capture(admin, "operations");

    await admin.getByLabel("one agent").check();
    await admin.getByLabel("Agent id", { exact: true }).first().fill(IDLE_AGENT_ID);
    await admin.locator("select[name=kind]").selectOption("DESCRIBE MANIFEST");
    await admin.getByRole("button", { name: "Queue operations" }).click();
    await admin.getByText("Queued 1 operation:").waitFor();
    const queued = admin
      .getByRole("row")
      .filter({ hasText: "DESCRIBE MANIFEST" })
      .filter({ has: admin.getByRole("link", { name: IDLE_AGENT_ID }) })
      .first();
    await queued.getByText("queued", { exact: true }).waitFor();
    await queued.getByRole("button", { name: "Cancel" }).click();
    await queued.getByText("cancelled", { exact: true }).waitFor();
    const { body } = await api<{ items: { state: string }[] }>(`/operations?agentId=${IDLE_AGENT_ID}`);
    expect(body.items.map(({ state }) => state)).toContain("cancelled");
    // Filters live in the URL.
    await admin.goto(`${webUrl}/operations?state=cancelled`);
    await admin.getByRole("link", { name: IDLE_AGENT_ID }).first().waitFor();
    expect(await admin.locator("select[name=state]").inputValue()).toBe("cancelled");
  });

  it("holds an operation for a class's closed maintenance window, or refuses it, as the form chooses", async () => {
    // One window, three days ahead: closed now, in whatever zone the tenant reads it.
    const day = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"][(new Date().getUTCDay() + 3) % 7];
    const setWindows = async (maintenanceWindows: unknown[]) => {
      const response = await api("/classes/idle", {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ maintenanceWindows }),
      });
      expect(response.status).toBe(200);
    };
    await setWindows([{ days: [day], start: "02:00", durationMinutes: 240 }]);
    try {
      await openCreateForm(admin, IDLE_AGENT_ID, "DESCRIBE METRICS");
      const outsideWindow = admin.getByLabel("For agents outside their class's maintenance windows");
      expect(await outsideWindow.inputValue()).toBe("wait");

      await outsideWindow.selectOption("refuse");
      await admin.getByRole("button", { name: "Queue operations" }).click();
      await admin.getByText("The agent is outside the maintenance windows", { exact: false }).waitFor();
      const metricsOf = async () =>
        (
          await api<{
            items: { operationId: string; operation: string; operand?: string; notBefore?: string }[];
          }>(`/operations?agentId=${IDLE_AGENT_ID}&state=queued`)
        ).body.items.filter(({ operand }) => operand === "METRICS");
      expect(await metricsOf()).toEqual([]);

      await outsideWindow.selectOption("wait");
      await admin.getByRole("button", { name: "Queue operations" }).click();
      await admin.getByText("Queued 1 operation:").waitFor();
      const [held] = await metricsOf();
      expect(Date.parse(held?.notBefore ?? "")).toBeGreaterThan(Date.now());
      const cancelled = await api(`/operations/${held?.operationId}/cancel`, { method: "POST" });
      expect(cancelled.status).toBe(200);
    } finally {
      await setWindows([]);
    }
  });

  it("downloads what an agent's DESCRIBE CONFIGURATION answered, its secret-looking values redacted", async () => {
    const agentId = AGENT_IDS[0] as string;
    await openCreateForm(admin, agentId, "DESCRIBE CONFIGURATION");
    await admin.getByRole("button", { name: "Queue operations" }).click();
    await admin.getByText("Queued 1 operation:").waitFor();
    // The list follows the operation until the simulated agent has answered it.
    const result = admin
      .getByRole("row")
      .filter({ hasText: "DESCRIBE CONFIGURATION" })
      .first()
      .getByRole("button", { name: /^Result/ });
    await result.waitFor();
    const [download] = await Promise.all([admin.waitForEvent("download"), result.click()]);
    expect(download.suggestedFilename()).toMatch(/~gateways-agent-001\.json$/);
    const answer = JSON.parse(await readFile(await download.path(), "utf8"));
    expect(answer.configuration_options).toMatchObject({
      "nifi.c2.agent.class": "pumps",
      "nifi.c2.rest.api.token": "[redacted by Beacon]",
    });
  });

  it("lists an agent's recent events, newest first", async () => {
    // The agent registered and ran operations to done above; the stream consumer keeps those events.
    type Events = { items: { type: string; at: string }[] };
    await untilTrue(
      "the agent's operations to be kept as events",
      async () => {
        const { body } = await api<Events>(`/agents/${AGENT_IDS[0]}/events`);
        return body.items.some(({ type }) => type === "operation");
      },
      120_000,
    );
    const { body } = await api<Events>(`/agents/${AGENT_IDS[0]}/events`);
    const times = body.items.map(({ at }) => Date.parse(at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    await admin.goto(`${webUrl}/agents/${AGENT_IDS[0]}`);
    const events = admin.getByRole("region", { name: "Recent events", exact: true });
    await events.getByRole("row").filter({ hasText: /→/ }).first().waitFor();
    await capture(admin, "agent-events");
    expect((await api(`/agents/no-such-agent/events`)).status).toBe(404);
  });

  it("issues a certificate whose generated key is shown once and downloadable, then revokes it", async () => {
    await admin.getByRole("link", { name: "Certificates" }).click();
    await admin.getByRole("heading", { name: "Certificates", level: 1 }).waitFor();
    await admin.getByText("Issue a certificate").click();
    await admin.getByLabel("Agent id").fill("edge-web-0001");
    await admin.getByRole("button", { name: "Issue certificate" }).click();
    const issued = admin.getByRole("region", { name: /Issued CN=edge-web-0001,OU=agent,O=dev/ });
    await issued.waitFor();
    const shownKey = await issued.getByLabel("Private key").inputValue();
    expect(shownKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const [download] = await Promise.all([
      admin.waitForEvent("download"),
      issued.getByRole("link", { name: /Download private key/ }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("edge-web-0001.key");
    expect(await readFile(await download.path(), "utf8")).toBe(shownKey);
    await capture(admin, "certificate-issued");
    await issued.getByRole("button", { name: "Done, forget the key" }).click();
    await issued.waitFor({ state: "detached" });
    expect(await admin.getByText("BEGIN PRIVATE KEY").count()).toBe(0);

    const row = admin.getByRole("row").filter({ has: admin.getByRole("link", { name: "edge-web-0001" }) });
    const serial = (await row.getByRole("cell").first().textContent()) ?? "";
    expect(serial).toMatch(/^[0-9A-F]+$/);
    await row.getByRole("button", { name: "Revoke…" }).click();
    await row.getByRole("combobox", { name: "Reason" }).selectOption({ label: "key compromise" });
    await row.getByRole("button", { name: `Revoke ${serial}` }).click();
    await row.getByText("revoked", { exact: true }).waitFor();
    await row.getByText("(key compromise)").waitFor();
    expect((await api<{ state: string }>(`/certificates/${serial}`)).body).toMatchObject({
      state: "revoked",
      revocationReason: "keyCompromise",
    });
    await capture(admin, "certificates");
  });

  it("shows a viewer no action that changes anything, and the API refuses one anyway", async () => {
    const page = await signedIn("viewer");
    expect(
      await page.getByRole("link", { name: /Certificates|Audit trail|Event subscriptions/ }).count(),
    ).toBe(0);
    await page.goto(`${webUrl}/agents/gateways-agent-003`);
    await page.getByRole("heading", { name: "Identity and status" }).waitFor();
    await page.getByRole("heading", { name: "Operations" }).waitFor();
    expect(await page.getByRole("button", { name: /Decommission|Ask for its manifest/ }).count()).toBe(0);
    await capture(page, "agent-as-viewer");
    const refused = await page.evaluate(async () => {
      const { sessionStorage } = globalThis as unknown as {
        sessionStorage: { getItem(key: string): string | null };
      };
      const token = sessionStorage.getItem("beacon.console.token");
      const response = await fetch("/api/v1/agents/gateways-agent-003", {
        method: "DELETE",
        headers: { authorization: `Bearer ${token}` },
      });
      return response.status;
    });
    expect(refused).toBe(403);
    await page.goto(`${webUrl}/classes/${AGENT_CLASS}`);
    await page.getByRole("heading", { name: "Flow versions" }).waitFor();
    expect(await page.getByText("Publish a flow version").count()).toBe(0);
    await page.goto(`${webUrl}/rollouts`);
    await page.getByRole("heading", { name: "All rollouts" }).waitFor();
    expect(await page.getByText("Start a rollout", { exact: true }).count()).toBe(0);
    await page.getByRole("row").nth(1).getByRole("link").first().click();
    await page.getByRole("heading", { name: /^Rollout /, level: 1 }).waitFor();
    expect(await page.getByRole("button", { name: /Pause|Resume|Abort/ }).count()).toBe(0);
    await page.goto(`${webUrl}/certificates`);
    await page.getByText("Certificates are an admin's to list, issue and revoke").waitFor();
    await page.goto(`${webUrl}/webhooks`);
    await page.getByRole("alert").filter({ hasText: "Could not load event subscriptions" }).waitFor();
    await page.context().close();
  });

  it("shows an admin the audit trail, refusals included, filtered by operation", async () => {
    await admin.getByRole("link", { name: "Audit trail" }).click();
    await admin.getByRole("heading", { name: "Audit trail", level: 1 }).waitFor();
    const records = admin.getByRole("region", { name: "Audit records" });
    const refused = records.getByRole("row").filter({ hasText: "decommissionAgent" }).first();
    await refused.getByText("forbidden").waitFor();
    expect(await refused.getByText("agentId gateways-agent-003").count()).toBe(1);
    await records.getByRole("row").filter({ hasText: "revokeCertificate" }).first().waitFor();
    await capture(admin, "audit");

    await admin.getByLabel("Operation").fill("revokeCertificate");
    await admin.getByRole("button", { name: "Apply filters" }).click();
    await admin.waitForURL(/\/audit\?operation=revokeCertificate$/);
    await records.getByRole("row").filter({ hasText: "revokeCertificate" }).first().waitFor();
    expect(await records.getByRole("row").filter({ hasText: "decommissionAgent" }).count()).toBe(0);
  });

  it("shows the tenant's clean-up default to every role, an admin sets it, and a class's own age overrides it", async () => {
    const age = admin.getByLabel("Clean up agents silent for (days)");
    const save = admin.getByRole("button", { name: "Save clean-up age" });
    await admin.getByRole("link", { name: "Settings" }).click();
    await admin.getByRole("heading", { name: "Tenant settings", level: 1 }).waitFor();
    await admin.getByText("never: silent agents are kept").waitFor();
    await age.fill("90");
    await save.click();
    await admin.getByText("90 days of silence").waitFor();
    await capture(admin, "settings");

    await admin.goto(`${webUrl}/classes/${AGENT_CLASS}`);
    await admin.getByText("the tenant's default: 90 days of silence").waitFor();
    await admin.getByText("Change the clean-up age").click();
    await age.fill("30");
    await save.click();
    await admin.getByText("30 days of silence, the class's own").waitFor();

    const page = await signedIn("viewer");
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByText("90 days of silence").waitFor();
    expect(await page.getByRole("button", { name: "Save clean-up age" }).count()).toBe(0);
    await page.context().close();

    // Back to no clean-up, as the other cases found the class and the tenant.
    await age.fill("");
    await save.click();
    await admin.getByText("the tenant's default: 90 days of silence").waitFor();
    const unset = await api("/settings", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ cleanUpAfterDays: null }),
    });
    expect(unset).toEqual({ status: 200, body: { updatedAt: expect.any(String) } });
  });

  it("subscribes an endpoint, shows its secret once, tests it, logs its deliveries, enables it again once disabled and deletes it", async () => {
    await admin.getByRole("link", { name: "Event subscriptions" }).click();
    await admin.getByRole("heading", { name: "Event subscriptions", level: 1 }).waitFor();
    await admin.getByText("Subscribe an endpoint").click();
    const subscribe = admin.getByRole("button", { name: "Subscribe", exact: true });
    await admin.getByLabel("Receiver URL (https)").fill("http://hooks.example.com/beacon");
    await subscribe.click();
    await admin.getByRole("alert").filter({ hasText: "Pick at least one event type." }).waitFor();
    await admin.getByLabel(/^operation\.\* /).check();
    // Its types are covered by the family: shown chosen, not named one by one.
    expect(await admin.getByLabel(/^operation\.done /).isChecked()).toBe(true);
    expect(await admin.getByLabel(/^operation\.done /).isDisabled()).toBe(true);
    await admin.getByLabel(/^agent\.offline /).check();
    await admin.getByLabel("Only agents of class (optional)").fill(AGENT_CLASS);
    await admin.getByLabel("Description (optional)").fill("the on-call pager");
    await subscribe.click();
    // The API's own words for what it refuses.
    await admin.getByRole("alert").filter({ hasText: "The url must use https" }).waitFor();
    await capture(admin, "webhook-subscribe");

    await admin.getByLabel("Receiver URL (https)").fill(receiver.url);
    const [created] = await Promise.all([
      admin.waitForResponse(
        (response) => response.url().endsWith("/api/v1/webhooks") && response.status() === 201,
      ),
      subscribe.click(),
    ]);
    const { subscriptionId } = (await created.json()) as { subscriptionId: string };
    const shown = admin.getByRole("region", { name: `Subscribed ${receiver.url}` });
    await shown.getByText("Copy the signing secret now: it will not be shown again.").waitFor();
    const secret = await shown.getByLabel("Signing secret").inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    const kept = await admin.evaluate(() => {
      const { sessionStorage, localStorage } = globalThis as unknown as {
        sessionStorage: { length: number; key(index: number): string | null };
        localStorage: { length: number };
      };
      const sessionKeys = Array.from({ length: sessionStorage.length }, (_, index) =>
        sessionStorage.key(index),
      );
      return { sessionKeys, localItems: localStorage.length };
    });
    expect(kept).toEqual({ sessionKeys: ["beacon.console.token"], localItems: 0 });
    expect(admin.url()).not.toContain(secret);
    await capture(admin, "webhook-created");
    await shown.getByRole("button", { name: "Done, forget the secret" }).click();
    await shown.waitFor({ state: "detached" });
    expect(await admin.getByText(secret).count()).toBe(0);
    expect(JSON.stringify((await api(`/webhooks/${subscriptionId}`)).body)).not.toContain(secret);

    const row = admin.getByRole("row").filter({ has: admin.getByRole("link", { name: receiver.url }) });
    await row.getByText("active", { exact: true }).waitFor();
    expect(await row.getByRole("cell").nth(1).textContent()).toBe("agent.offline, operation.*");
    expect(await row.getByRole("cell").nth(2).textContent()).toBe(AGENT_CLASS);
    await capture(admin, "webhooks");

    await row.getByRole("link", { name: receiver.url }).click();
    await admin.getByRole("heading", { name: "Event subscription", level: 1 }).waitFor();
    const before = receiver.received.length;
    await admin.getByRole("button", { name: "Send test" }).click();
    await admin
      .getByRole("status")
      .filter({ hasText: /^delivered the receiver answered 204 in \d+ ms\./ })
      .waitFor();
    const [test] = (await receiver.waitForDeliveries(before + 1, 30_000)).slice(before);
    expect(JSON.parse(test?.body ?? "{}")).toMatchObject({ type: "webhook.test", data: { subscriptionId } });
    expect(signatureOf(test as NonNullable<typeof test>, secret).valid).toBe(true);
    // The test is posted directly, outside the queue: the log stays empty until an event it names happens.
    await admin.getByText("No delivery yet").waitFor();

    // Operations for one of the class's agents: the stream consumer queues their changes of state for the
    // subscription and delivers them at once. It reads a tenant's subscriptions again every 30 s, so until it
    // has read this one it lets operations pass: one more is queued each time the last one is done.
    type Deliveries = { items: { notificationType: string; state: string }[] };
    let lastOperation: string | undefined;
    await untilTrue(
      "an operation's notification to be delivered and logged",
      async () => {
        const { body } = await api<Deliveries>(`/webhooks/${subscriptionId}/deliveries`);
        const logged = body.items.some(
          (item) => item.notificationType.startsWith("operation.") && item.state === "delivered",
        );
        if (logged) return true;
        const lastDone =
          lastOperation === undefined ||
          (await api<{ state: string }>(`/operations/${lastOperation}`)).body.state === "done";
        if (lastDone) {
          const queued = await api<{ items: { operationId: string }[] }>("/operations", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ agentId: AGENT_IDS[0], operation: "DESCRIBE", operand: "MANIFEST" }),
          });
          expect(queued.status).toBe(201);
          lastOperation = queued.body.items[0]?.operationId;
        }
        return false;
      },
      150_000,
    );
    const operationDelivery = receiver.received
      .slice(before + 1)
      .find((delivery) => (JSON.parse(delivery.body) as { type: string }).type.startsWith("operation."));
    expect(operationDelivery && signatureOf(operationDelivery, secret).valid).toBe(true);
    await admin.getByRole("button", { name: "Refresh" }).click();
    const log = admin.getByRole("region", { name: "Deliveries" });
    const delivered = log
      .getByRole("row")
      .filter({ hasText: /operation\./ })
      .filter({ hasText: "delivered" })
      .first();
    await delivered.waitFor();
    expect(await delivered.getByRole("cell").nth(3).textContent()).toBe("1");
    expect(await delivered.getByRole("cell").nth(4).textContent()).toMatch(/^answered 204 in \d+ ms/);
    await capture(admin, "webhook");

    // A receiver that answers 410 Gone has its subscription disabled at the next notification; enabled again
    // (from the list, which says why it was disabled as its page does), the subscription takes events once more.
    receiver.answerWith({ status: 410 });
    type Subscription = { state: string; disabledReason?: string };
    try {
      const gone = await api<{ items: unknown[] }>("/operations", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ agentId: AGENT_IDS[0], operation: "DESCRIBE", operand: "MANIFEST" }),
      });
      expect(gone.status).toBe(201);
      await untilTrue(
        "the subscription to be disabled by its receiver's 410 Gone",
        async () => (await api<Subscription>(`/webhooks/${subscriptionId}`)).body.state === "disabled",
        60_000,
      );
    } finally {
      receiver.answerWith({ status: 204 });
    }
    await admin.reload();
    const state = admin
      .getByRole("definition")
      .filter({ has: admin.getByRole("button", { name: "Enable" }) });
    await state.getByText("disabled", { exact: true }).waitFor();
    await state.getByText("The receiver answered 410 Gone").waitFor();
    await capture(admin, "webhook-disabled");
    // The list offers the same: the subscription is enabled from its row.
    await admin.getByRole("link", { name: "All event subscriptions" }).click();
    const disabledRow = admin
      .getByRole("row")
      .filter({ has: admin.getByRole("link", { name: receiver.url }) });
    await disabledRow.getByText("disabled", { exact: true }).waitFor();
    await disabledRow.getByText("The receiver answered 410 Gone").waitFor();
    await disabledRow.getByRole("button", { name: "Enable" }).click();
    await disabledRow.getByRole("button", { name: "Enable" }).waitFor({ state: "detached" });
    await disabledRow.getByText("active", { exact: true }).waitFor();
    expect(await disabledRow.getByText("The receiver answered 410 Gone").count()).toBe(0);
    await disabledRow.getByRole("link", { name: receiver.url }).click();
    await admin.getByRole("heading", { name: "Event subscription", level: 1 }).waitFor();
    await admin.getByText("active", { exact: true }).waitFor();
    expect(await admin.getByRole("button", { name: "Enable" }).count()).toBe(0);
    expect((await api<Subscription>(`/webhooks/${subscriptionId}`)).body).toMatchObject({ state: "active" });
    expect((await api<Subscription>(`/webhooks/${subscriptionId}`)).body).not.toHaveProperty(
      "disabledReason",
    );

    await admin.getByRole("button", { name: "Delete…" }).click();
    await admin.getByRole("button", { name: "Keep it" }).click();
    await admin.getByRole("button", { name: "Delete…" }).click();
    await admin.getByRole("button", { name: "Delete this subscription" }).click();
    await admin.getByRole("heading", { name: "Event subscriptions", level: 1 }).waitFor();
    await admin.getByRole("link", { name: receiver.url }).waitFor({ state: "detached" });
    expect((await api(`/webhooks/${subscriptionId}`)).status).toBe(404);
  }, 240_000);

  it("shows an operator no event subscriptions, and the API refuses them", async () => {
    const page = await signedIn("operator");
    expect(
      await page.getByRole("link", { name: /Event subscriptions|Audit trail|Certificates/ }).count(),
    ).toBe(0);
    await page.goto(`${webUrl}/webhooks`);
    await page.getByRole("alert").filter({ hasText: "Could not load event subscriptions" }).waitFor();
    expect(await page.getByText("Subscribe an endpoint").count()).toBe(0);
    const refused = await page.evaluate(async (url) => {
      const { sessionStorage } = globalThis as unknown as {
        sessionStorage: { getItem(key: string): string | null };
      };
      const response = await fetch("/api/v1/webhooks", {
        method: "POST",
        headers: {
          authorization: `Bearer ${sessionStorage.getItem("beacon.console.token")}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ url, eventTypes: ["agent.*"] }),
      });
      return response.status;
    }, receiver.url);
    expect(refused).toBe(403);
    await page.context().close();
  });

  it("shows an operator limited to a class that class's agents and classes only, and nothing tenant-wide", async () => {
    const OTHER_CLASS = "idle";
    const signedIn = async (classes?: string) => {
      const { context, page } = await newPage();
      const refused: string[] = [];
      page.on("response", (response) => {
        if (response.status() === 403) refused.push(response.url());
      });
      await page.goto(webUrl);
      await signIn(page, "operator", classes === undefined ? "Fleet" : "Agents", classes);
      return { context, page, refused };
    };
    const pageText = async (page: Page) => (await page.locator("body").textContent()) ?? "";

    const whole = await signedIn();
    await whole.page.getByRole("link", { name: "Agents", exact: true }).click();
    // The fleet page it leaves lists recent operations, with links to their agents.
    await whole.page.getByRole("heading", { name: "Agents", level: 1 }).waitFor();
    await whole.page.getByRole("link", { name: IDLE_AGENT_ID }).waitFor();
    await whole.page.getByRole("link", { name: "Classes and flows" }).click();
    await whole.page.getByRole("link", { name: OTHER_CLASS, exact: true }).waitFor();
    await whole.context.close();

    const { context, page, refused } = await signedIn(AGENT_CLASS);
    // The tenant-wide fleet page is not theirs: they land on their agents.
    expect(page.url()).toBe(`${webUrl}/agents`);
    await page.getByText(`dev · operator · classes: ${AGENT_CLASS}`).waitFor();
    const sections = page.getByRole("navigation", { name: "Console" }).getByRole("link");
    expect(await sections.allTextContents()).toEqual([
      "Agents",
      "Classes and flows",
      // Their classes' agents by binary.
      "Binaries",
      "Rollouts",
      // Their classes' rollouts waiting for a second operator, none here.
      "Approvals",
      "Operations",
      // The tenant's defaults, which their classes follow: read only.
      "Settings",
    ]);
    for (const agentId of AGENT_IDS) await page.getByRole("link", { name: agentId }).waitFor();
    expect(await pageText(page)).not.toContain(OTHER_CLASS);
    // The class filter offers their classes only.
    const classChoices = page.getByLabel("Class").locator("option");
    expect(await classChoices.allTextContents()).toEqual(["any of yours", AGENT_CLASS]);
    await capture(page, "agents-limited-to-a-class");

    await page.getByRole("link", { name: "Classes and flows" }).click();
    await page.getByRole("link", { name: AGENT_CLASS, exact: true }).waitFor();
    expect(await pageText(page)).not.toContain(OTHER_CLASS);
    await page.getByRole("link", { name: "Operations" }).click();
    await page.getByRole("heading", { name: "Operations", level: 1 }).waitFor();
    await page.waitForLoadState("networkidle");
    expect(await pageText(page)).not.toContain(OTHER_CLASS);
    // The brand's link goes to their landing page too.
    await page.getByRole("link", { name: "Beacon", exact: true }).click();
    await page.waitForURL(`${webUrl}/agents`);
    await page.getByRole("link", { name: AGENT_IDS[0] as string }).waitFor();
    expect(refused).toEqual([]);
    await context.close();
  });

  it("signs an operator in with the identity provider: authorization code with PKCE, checked server-side", async () => {
    const { context, page } = await newPage();
    const callbacks: string[] = [];
    page.on("request", (sent) => {
      if (sent.url().startsWith(`${webUrl}/auth/callback?`)) callbacks.push(sent.url());
    });
    await page.goto(`${webUrl}/operations`);
    await page.getByRole("button", { name: "Sign in with the identity provider" }).click();
    // The local stack's authorization server, where a deployment has the user pool's hosted pages.
    await page.getByRole("heading", { name: "Sign in to Beacon" }).waitFor();
    const request = new URL(page.url()).searchParams;
    expect(request.get("code_challenge_method")).toBe("S256");
    expect(request.get("redirect_uri")).toBe(`${webUrl}/auth/callback`);
    await expectAccessible(page, "the local identity provider's sign-in");
    await page.getByLabel("Tenant").fill("dev");
    await page.getByLabel("Role").selectOption("operator");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Operations", level: 1 }).waitFor();
    expect(page.url()).toBe(`${webUrl}/operations`);
    await page.getByText("dev · operator").waitFor();
    // The ID token is the session; the sign-in's verifier, state and nonce went with the code.
    const kept = await page.evaluate(() => {
      const { sessionStorage } = globalThis as unknown as {
        sessionStorage: { length: number; key(index: number): string | null };
      };
      return Array.from({ length: sessionStorage.length }, (_, index) => sessionStorage.key(index));
    });
    expect(kept).toEqual(["beacon.console.token"]);
    // The provider's answer opened again: its code is spent and this tab's sign-in is over, so it is refused.
    expect(callbacks).toHaveLength(1);
    await page.goto(callbacks[0] as string);
    await page.getByRole("alert").filter({ hasText: "was already used" }).waitFor();
    await context.close();
  });

  it("sets a class's parameter values and an agent's own, shows where each value comes from, and a viewer nothing to change", async () => {
    const SITES = "sites";
    const SITE_AGENT = "sites-agent-001";
    const json = { "content-type": "application/json" };
    // A class without agents completes a rollout at once: its target then declares the fixture's parameters.
    expect((await api(`/classes/${SITES}`, { method: "PUT", headers: json, body: "{}" })).status).toBe(201);
    const published = await api<{ hash: string }>(`/classes/${SITES}/flows`, {
      method: "POST",
      headers: json,
      body: JSON.stringify(javaParameterFlow),
    });
    expect(published.status).toBe(201);
    const flowHash = published.body.hash;
    const rollout = await api("/rollouts", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ className: SITES, flowHash }),
    });
    expect(rollout.status).toBe(201);
    await untilTrue(
      "the rollout to make the version the class's target",
      async () =>
        (await api<{ flow?: { target: string } }>(`/classes/${SITES}`)).body.flow?.target === flowHash,
      60_000,
    );
    const siteAgent = simulatedAgents([
      "--class",
      SITES,
      "--count",
      "1",
      "--interval",
      "3600",
      "--prefix",
      "sites-agent-",
    ]);
    try {
      await untilRegistered(SITES, 1);
      const rowOf = (table: Locator, name: string) =>
        table.getByRole("row").filter({ has: table.page().getByText(name, { exact: true }) });
      const cellsOf = async (table: Locator, name: string) =>
        (await rowOf(table, name).getByRole("cell").allTextContents()).slice(1);

      const { context, page } = await newPage();
      await page.goto(`${webUrl}/classes/${SITES}`);
      await signIn(page, "operator", SITES);
      const classSection = page.getByRole("region", { name: "Parameters", exact: true });
      await classSection.getByText("No parameter value set for the class").waitFor();
      await classSection.getByText("Set a parameter value").click();
      // The names the target version declares are offered, any other taken: offered once the class's target
      // is known, which the page reads beside the parameter values.
      const offered = async () =>
        (
          await Promise.all(
            (
              await classSection.locator("datalist option").all()
            ).map((option) => option.getAttribute("value")),
          )
        ).sort();
      await expect
        .poll(offered)
        .toEqual(["compression", "kafka.brokers", "kafka.password", "s3.prefix", "site.id"]);
      const name = classSection.getByLabel("Parameter name");
      await name.fill("kafka.brokers");
      await classSection.getByText("The flow declares it. Its default: localhost:9092.").waitFor();
      await classSection.getByLabel("Value", { exact: true }).fill("broker-1.plant.example:9092");
      await classSection.getByRole("button", { name: "Set value" }).click();
      await classSection.getByText("Set kafka.brokers for the class.").waitFor();
      // A sensitive parameter is offered a reference to a secret alone.
      await name.fill("kafka.password");
      expect(await classSection.getByLabel("text", { exact: true }).isDisabled()).toBe(true);
      expect(await classSection.getByLabel("a reference to a secret").isChecked()).toBe(true);
      const secretRef = classSection.getByLabel("Secret reference");
      await secretRef.fill("ssm:/beacon/acme/kafka-password");
      await classSection.getByRole("button", { name: "Set value" }).click();
      await classSection
        .getByRole("alert")
        .filter({ hasText: "names a secret outside the tenant's" })
        .waitFor();
      await secretRef.fill("ssm:/beacon/dev/sites/kafka-password");
      await classSection.getByRole("button", { name: "Set value" }).click();
      await classSection.getByText("Set kafka.password for the class.").waitFor();
      const classValues = classSection.getByRole("region", { name: "The class's parameter values" });
      await rowOf(classValues, "kafka.password").waitFor();
      expect((await cellsOf(classValues, "kafka.brokers")).slice(0, 2)).toEqual([
        "broker-1.plant.example:9092",
        "dev-operator",
      ]);
      expect((await cellsOf(classValues, "kafka.password"))[0]).toBe(
        "ssm:/beacon/dev/sites/kafka-passwordsecret reference",
      );
      await capture(page, "class-parameters");

      await page.goto(`${webUrl}/agents/${SITE_AGENT}`);
      const agentSection = page.getByRole("region", { name: "Parameters", exact: true });
      const effective = agentSection.getByRole("region", { name: "The agent's parameters" });
      await rowOf(effective, "kafka.password").waitFor();
      expect(await cellsOf(effective, "site.id")).toEqual(["site-0", "the flow's default", "yes"]);
      expect(await cellsOf(effective, "kafka.brokers")).toEqual([
        "broker-1.plant.example:9092",
        "the class",
        "yes",
      ]);
      expect(await cellsOf(effective, "kafka.password")).toEqual([
        "ssm:/beacon/dev/sites/kafka-passwordsecret reference",
        "the class",
        "yes, sensitive",
      ]);
      await agentSection.getByText("None: the agent gets its class's values.").waitFor();
      await agentSection.getByText("Set a parameter value").click();
      await agentSection.getByLabel("Parameter name").fill("kafka.brokers");
      await agentSection.getByLabel("Value", { exact: true }).fill("broker-9.plant.example:9092");
      await agentSection.getByRole("button", { name: "Set value" }).click();
      await agentSection.getByText("Set kafka.brokers for this agent.").waitFor();
      await rowOf(effective, "kafka.brokers").getByRole("cell", { name: "the agent's own" }).waitFor();
      expect(await cellsOf(effective, "kafka.brokers")).toEqual([
        "broker-9.plant.example:9092",
        "the agent's own",
        "yes",
      ]);
      await capture(page, "agent-parameters");
      const own = agentSection.getByRole("region", { name: "The agent's own parameter values" });
      await own.getByRole("button", { name: "Delete… kafka.brokers" }).click();
      await own.getByRole("button", { name: "Delete kafka.brokers" }).click();
      await agentSection.getByText("None: the agent gets its class's values.").waitFor();
      expect(await cellsOf(effective, "kafka.brokers")).toEqual([
        "broker-1.plant.example:9092",
        "the class",
        "yes",
      ]);
      await context.close();

      const viewer = await newPage();
      await viewer.page.goto(`${webUrl}/agents/${SITE_AGENT}`);
      await signIn(viewer.page, "viewer", SITE_AGENT);
      const seen = viewer.page.getByRole("region", { name: "Parameters", exact: true });
      await rowOf(seen.getByRole("region", { name: "The agent's parameters" }), "kafka.password").waitFor();
      expect(await seen.getByText("Set a parameter value").count()).toBe(0);
      await viewer.page.goto(`${webUrl}/classes/${SITES}`);
      const seenClass = viewer.page.getByRole("region", { name: "Parameters", exact: true });
      await rowOf(
        seenClass.getByRole("region", { name: "The class's parameter values" }),
        "kafka.password",
      ).waitFor();
      expect(await seenClass.getByText("Set a parameter value").count()).toBe(0);
      expect(await seenClass.getByRole("button", { name: /Delete/ }).count()).toBe(0);
      await capture(viewer.page, "class-parameters-as-viewer");
      await viewer.context.close();
    } finally {
      await stopGroup(siteAgent);
    }
  });

  it("would notice an inaccessible page", async () => {
    await admin.evaluate(() => {
      const { document } = globalThis as unknown as {
        document: {
          createElement(tag: string): { src: string };
          querySelector(selector: string): { append(node: unknown): void };
        };
      };
      const image = document.createElement("img");
      image.src = "data:image/gif;base64,R0lGODlhAQABAAAAACw=";
      document.querySelector("main").append(image);
    });
    await expect(expectAccessible(admin, "a page given an image without a text alternative")).rejects.toThrow(
      /image-alt/,
    );
  });

  it("ran every page without an uncaught error or a Content-Security-Policy refusal", () => {
    expect(pageProblems).toEqual([]);
  });
});

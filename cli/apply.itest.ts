/**
 * `beacon apply` and `beacon diff` as a CI job runs them, against `npm start`: the example folder applied to a
 * tenant of its own, then applied again with no change planned and no write made (the audit trail says so),
 * a broken folder refused with nothing changed, what the folder does not declare deleted only with --prune,
 * a declared webhook's subscription, disabled by Beacon, enabled again, and agents' own values set and pruned.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoSubscriptionStore } from "../functions/adapters/dynamodb/subscription-store.js";
import { makeDynamoDbClient } from "../functions/runtime/aws-clients/dynamodb.js";
import { EnvNames } from "../functions/shared/env-names.js";
import { localStackEnv } from "../scripts/local/certificate-registration.js";
import { LOCAL_TOKEN_PATH } from "../scripts/local/web-server.js";
import { type LocalStack, repositoryRoot, startLocalStack } from "../scripts/test-support/local-stack.js";
import type { components } from "../web/src/api/schema.js";
import { sha256 } from "../web/test/console-harness.js";
import { ExitCode } from "./exit.js";

type Schemas = components["schemas"];
const BIN = path.join(repositoryRoot, "cli", "beacon.mjs");
const EXAMPLE = path.join(repositoryRoot, "docs", "examples", "fleet");
const TENANT = "fleet-as-code";

let stack: LocalStack;
let webUrl: string;
let token: string;

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function beacon(args: string[], bearer = token): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        env: {
          PATH: process.env.PATH,
          XDG_CONFIG_HOME: mkdtempSync(path.join(tmpdir(), "beacon-apply-")),
          BEACON_URL: webUrl,
          BEACON_TOKEN: bearer,
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

async function api<T>(
  route: string,
  init: RequestInit = {},
  bearer = token,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${webUrl}/api/v1${route}`, {
    ...init,
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** The audit records of writes since `from`: what the console API was asked to change. */
async function writesSince(from: string, bearer = token): Promise<Schemas["AuditRecord"][]> {
  const { body } = await api<Schemas["AuditRecordList"]>(
    `/audit?from=${encodeURIComponent(from)}&limit=100`,
    {},
    bearer,
  );
  return body.items;
}

/** A copy of the example folder, to change without touching the one the docs show. */
function exampleCopy(): string {
  const folder = mkdtempSync(path.join(tmpdir(), "beacon-fleet-"));
  cpSync(EXAMPLE, folder, { recursive: true });
  return folder;
}

/** The stack's table, where the webhook dispatcher disables a subscription whose deliveries keep failing. */
function subscriptionStore(): DynamoSubscriptionStore {
  const env = localStackEnv(stack.env);
  return new DynamoSubscriptionStore(
    DynamoDBDocumentClient.from(makeDynamoDbClient(env)),
    env[EnvNames.tableName] as string,
  );
}

async function adminToken(tenant: string): Promise<string> {
  const response = await fetch(`${webUrl}${LOCAL_TOKEN_PATH}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tenant, role: "admin" }),
  });
  return ((await response.json()) as { token: string }).token;
}

beforeAll(async () => {
  stack = await startLocalStack("apply");
  webUrl = `http://127.0.0.1:${stack.ports.web}`;
  token = await adminToken(TENANT);
}, 300_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

describe("beacon apply", () => {
  it("applies the example folder, then plans and writes nothing when applied again", async () => {
    const folder = exampleCopy();
    const before = new Date().toISOString();
    const planned = await beacon(["diff", "-f", folder, "--json"]);
    expect(planned, planned.stderr).toMatchObject({ code: ExitCode.changes });
    expect(JSON.parse(planned.stdout).summary).toEqual({
      create: 9,
      update: 1,
      delete: 0,
      unchanged: 0,
      unmanaged: 0,
    });

    const first = await beacon(["apply", "-f", folder]);
    expect(first, first.stderr).toMatchObject({ code: ExitCode.ok });
    expect(first.stdout).toContain("+ create FlowVersion pumps/flows/pumps.json\n");
    expect(first.stderr).toContain("Applied: 10 changes\n");
    expect(first.stderr).toMatch(/its signing secret is not kept/);

    const pumps = await api<Schemas["AgentClass"]>("/classes/pumps");
    expect(pumps.body).toMatchObject({ heartbeatIntervalSeconds: 30, ackTimeoutSeconds: 120 });
    const flows = await api<Schemas["FlowVersionList"]>("/classes/pumps/flows");
    expect(flows.body.items).toEqual([
      expect.objectContaining({
        hash: sha256(readFileSync(path.join(folder, "flows", "pumps.json"), "utf8")),
        version: 1,
        label: "generate",
      }),
    ]);
    expect((await api<Schemas["Group"]>("/groups/plant-7")).body.query).toEqual({ labels: ["site=plant-7"] });
    expect((await api<Schemas["ParameterEntryList"]>("/groups/plant-7/parameters")).body.items).toEqual([
      expect.objectContaining({ name: "site.name", value: "Plant 7" }),
    ]);
    expect((await api<Schemas["TenantSettings"]>("/settings")).body.timeZone).toBe("Europe/Berlin");
    const calibration = readFileSync(path.join(folder, "assets", "calibration.csv"), "utf8");
    expect((await api<Schemas["ResourceSet"]>("/classes/pumps/resources")).body.items).toEqual([
      { assetId: sha256(calibration), name: "calibration.csv", path: "calibration" },
    ]);
    expect((await api<Schemas["Asset"]>(`/assets/${sha256(calibration)}`)).body.sizeBytes).toBe(
      calibration.length,
    );
    const writes = await writesSince(before);
    expect(writes.map(({ operationId }) => operationId).sort()).toEqual([
      "completeAssetUpload",
      "createGroup",
      "createSubscription",
      "putClass",
      "putClass",
      "putClassParameter",
      "putGroupParameter",
      "putResourceSet",
      "putSettings",
      "startAssetUpload",
      "uploadFlow",
    ]);

    const between = new Date().toISOString();
    const second = await beacon(["apply", "-f", folder]);
    expect(second, second.stderr).toMatchObject({ code: ExitCode.ok });
    expect(second.stdout).toMatch(
      /\nPlan: 0 to create, 0 to update, 0 to delete, 10 unchanged, 0 not managed here\.\n$/,
    );
    expect(second.stderr).toBe("Applied: 0 changes\n");
    const again = await beacon(["diff", "-f", folder]);
    expect(again, again.stderr).toMatchObject({ code: ExitCode.ok });
    expect(await writesSince(between)).toEqual([]);
    expect((await api<Schemas["FlowVersionList"]>("/classes/pumps/flows")).body.items).toHaveLength(1);

    // A changed field is planned as the update of that field alone, and applied.
    writeFileSync(
      path.join(folder, "classes.yaml"),
      readFileSync(path.join(folder, "classes.yaml"), "utf8").replace(
        "heartbeatIntervalSeconds: 30",
        "heartbeatIntervalSeconds: 45",
      ),
    );
    const changed = await beacon(["diff", "-f", folder]);
    expect(changed).toMatchObject({ code: ExitCode.changes });
    expect(changed.stdout).toContain("~ update Class pumps\n    heartbeatIntervalSeconds: 30 → 45\n");
    expect(await beacon(["apply", "-f", folder])).toMatchObject({ code: ExitCode.ok });
    expect((await api<Schemas["AgentClass"]>("/classes/pumps")).body.heartbeatIntervalSeconds).toBe(45);

    // A resource set naming a new file and the uploaded one by its id: the new file uploaded, the set replaced.
    writeFileSync(path.join(folder, "assets", "gains.csv"), "sensor,gain\npressure-in,1.01\n");
    writeFileSync(
      path.join(folder, "resources.yaml"),
      `apiVersion: beacon/v1\nkind: ClassResources\nmetadata: {class: pumps}\nspec:\n  items:\n    - assetId: "${sha256(calibration)}"\n    - file: assets/gains.csv\n      path: calibration\n`,
    );
    const resourcesChanged = await beacon(["diff", "-f", folder]);
    expect(resourcesChanged).toMatchObject({ code: ExitCode.changes });
    expect(resourcesChanged.stdout).toContain(
      [
        "+ create Asset assets/gains.csv",
        "~ update ClassResources pumps",
        `    adds ${sha256(calibration)} at ""`,
        '    adds assets/gains.csv at "calibration"',
        '    removes calibration.csv at "calibration"',
      ].join("\n"),
    );
    const resourcesApplied = await beacon(["apply", "-f", folder]);
    expect(resourcesApplied, resourcesApplied.stderr).toMatchObject({ code: ExitCode.ok });
    expect(resourcesApplied.stderr).toContain("SYNC RESOURCE queued for 0 agent(s), 0 skipped\n");
    expect((await api<Schemas["ResourceSet"]>("/classes/pumps/resources")).body.items).toEqual([
      { assetId: sha256(calibration), name: "calibration.csv", path: "" },
      { assetId: sha256("sensor,gain\npressure-in,1.01\n"), name: "gains.csv", path: "calibration" },
    ]);
    expect(await beacon(["diff", "-f", folder])).toMatchObject({ code: ExitCode.ok });
  }, 240_000);

  it("refuses a broken folder before any request: exit 2, the file named, nothing changed", async () => {
    const folder = exampleCopy();
    writeFileSync(
      path.join(folder, "classes.yaml"),
      readFileSync(path.join(folder, "classes.yaml"), "utf8").replace(
        "heartbeatIntervalSeconds: 30",
        "heartbeatIntervalSeconds: 15",
      ),
    );
    writeFileSync(
      path.join(folder, "webhooks.yaml"),
      "apiVersion: beacon/v1\nkind: Webhook\nspec:\n  url: https://hooks.example.com/beacon\n  eventTypes: []\n",
    );
    const before = new Date().toISOString();
    const heartbeat = (await api<Schemas["AgentClass"]>("/classes/pumps")).body.heartbeatIntervalSeconds;
    const refused = await beacon(["apply", "-f", folder]);
    expect(refused).toMatchObject({ code: ExitCode.usage, stdout: "" });
    expect(refused.stderr).toBe(
      "beacon: webhooks.yaml (document 1, Webhook https://hooks.example.com/beacon): spec/eventTypes must NOT have fewer than 1 items\n",
    );
    expect(await writesSince(before)).toEqual([]);
    expect((await api<Schemas["AgentClass"]>("/classes/pumps")).body.heartbeatIntervalSeconds).toBe(
      heartbeat,
    );
  }, 120_000);

  it("leaves what the folder does not declare alone, and deletes it only with --prune", async () => {
    const folder = exampleCopy();
    expect(await beacon(["apply", "-f", folder])).toMatchObject({ code: ExitCode.ok });
    const stray = await api("/groups", {
      method: "POST",
      body: JSON.stringify({ name: "stray", query: { classes: ["valves"] } }),
    });
    expect(stray.status).toBe(201);
    const webhook = await api<Schemas["CreatedSubscription"]>("/webhooks", {
      method: "POST",
      body: JSON.stringify({ url: "https://hooks.example.com/other", eventTypes: ["agent.online"] }),
    });
    expect(webhook.status).toBe(201);
    expect(
      (await api("/classes/valves/parameters/stray", { method: "PUT", body: '{"value":"x"}' })).status,
    ).toBe(201);

    const kept = await beacon(["apply", "-f", folder]);
    expect(kept, kept.stderr).toMatchObject({ code: ExitCode.ok });
    expect(kept.stdout).toContain(
      [
        "Not managed here, left alone:",
        "  Group stray",
        "  ClassParameter valves/stray",
        `  Webhook ${webhook.body.subscriptionId} https://hooks.example.com/other [agent.online]`,
      ].join("\n"),
    );
    expect(kept.stderr).toBe("Applied: 0 changes\n");
    expect((await api("/groups/stray")).status).toBe(200);
    expect(await beacon(["diff", "-f", folder])).toMatchObject({ code: ExitCode.ok });

    const prunePlan = await beacon(["diff", "-f", folder, "--prune"]);
    expect(prunePlan).toMatchObject({ code: ExitCode.changes });
    expect(prunePlan.stdout).toContain("- delete Group stray\n");
    const pruned = await beacon(["apply", "-f", folder, "--prune"]);
    expect(pruned, pruned.stderr).toMatchObject({ code: ExitCode.ok });
    expect(pruned.stderr).toContain("Applied: 3 changes\n");
    expect((await api("/groups/stray")).status).toBe(404);
    expect((await api(`/webhooks/${webhook.body.subscriptionId}`)).status).toBe(404);
    expect((await api("/classes/valves/parameters/stray")).status).toBe(404);
    expect((await api("/groups/plant-7")).status).toBe(200);
    expect(await beacon(["diff", "-f", folder, "--prune"])).toMatchObject({ code: ExitCode.ok });
  }, 240_000);

  it("enables a declared webhook whose subscription Beacon disabled, keeping its id", async () => {
    const folder = exampleCopy();
    expect(await beacon(["apply", "-f", folder])).toMatchObject({ code: ExitCode.ok });
    const declared = (await api<Schemas["SubscriptionList"]>("/webhooks")).body.items.filter(
      ({ url }) => url === "https://hooks.example.com/beacon",
    );
    expect(declared).toHaveLength(1);
    const { subscriptionId } = declared[0] as Schemas["Subscription"];
    const reason = "No delivery succeeded for 24 hours; the last attempt got HTTP 500";
    expect(await subscriptionStore().disable(TENANT, subscriptionId, Date.now(), reason)).toBe(true);

    const planned = await beacon(["diff", "-f", folder]);
    expect(planned).toMatchObject({ code: ExitCode.changes });
    expect(planned.stdout).toContain(
      `~ update Webhook https://hooks.example.com/beacon [agent.offline,rollout.*] of pumps\n    state: "disabled" → "active" (${reason})\n`,
    );
    expect((await api<Schemas["Subscription"]>(`/webhooks/${subscriptionId}`)).body.state).toBe("disabled");

    const before = new Date().toISOString();
    const enabled = await beacon(["apply", "-f", folder]);
    expect(enabled, enabled.stderr).toMatchObject({ code: ExitCode.ok });
    expect(enabled.stderr).toContain(`  ${subscriptionId}: enabled\nApplied: 1 change\n`);
    expect((await writesSince(before)).map(({ operationId }) => operationId)).toEqual(["enableSubscription"]);
    const subscriptions = (await api<Schemas["SubscriptionList"]>("/webhooks")).body.items;
    expect(subscriptions.filter(({ url }) => url === "https://hooks.example.com/beacon")).toEqual([
      expect.objectContaining({ subscriptionId, state: "active" }),
    ]);

    const again = await beacon(["apply", "-f", folder]);
    expect(again, again.stderr).toMatchObject({ code: ExitCode.ok });
    expect(again.stdout).toMatch(
      /\nPlan: 0 to create, 0 to update, 0 to delete, 10 unchanged, 0 not managed here\.\n$/,
    );
    expect(again.stderr).toBe("Applied: 0 changes\n");
  }, 240_000);

  it("sets agents' own values, prunes only those of the agents it names, and refuses an agent the tenant lacks", async () => {
    // Two agents of the tenant the local fleet certificate is for, registered by a heartbeat each.
    await promisify(execFile)(
      "npm",
      [
        "run",
        "-s",
        "agents",
        "--",
        "--class",
        "apply-agents",
        "--count",
        "2",
        "--beats",
        "1",
        "--prefix",
        "apply-agent-",
      ],
      { cwd: repositoryRoot, env: stack.env },
    );
    const dev = await adminToken("dev");
    const ownValues = async (agentId: string) =>
      (await api<Schemas["AgentParameters"]>(`/agents/${agentId}/parameters`, {}, dev)).body.agentValues.map(
        ({ name, value }) => `${name}=${value}`,
      );
    const set = await api(
      "/agents/apply-agent-001/parameters/retired",
      { method: "PUT", body: '{"value":"x"}' },
      dev,
    );
    expect(set.status).toBe(201);
    const folder = mkdtempSync(path.join(tmpdir(), "beacon-fleet-agents-"));
    const value = (agentId: string, name: string, text: string) =>
      `apiVersion: beacon/v1\nkind: AgentParameter\nmetadata: {agent: ${agentId}, name: ${name}}\nspec: {value: "${text}"}\n`;
    writeFileSync(
      path.join(folder, "agents.yaml"),
      [
        value("apply-agent-001", "broker", "edge-1:9092"),
        value("apply-agent-002", "broker", "edge-2:9092"),
      ].join("---\n"),
    );

    const planned = await beacon(["diff", "-f", folder], dev);
    expect(planned, planned.stderr).toMatchObject({ code: ExitCode.changes });
    expect(planned.stdout).toContain(
      "+ create AgentParameter apply-agent-001/broker\n+ create AgentParameter apply-agent-002/broker\n",
    );
    expect(planned.stdout).toMatch(
      /\nNot managed here, left alone:\n(.*\n)* {2}AgentParameter apply-agent-001\/retired\n/,
    );
    const applied = await beacon(["apply", "-f", folder], dev);
    expect(applied, applied.stderr).toMatchObject({ code: ExitCode.ok });
    expect(await ownValues("apply-agent-001")).toEqual(["broker=edge-1:9092", "retired=x"]);
    expect(await ownValues("apply-agent-002")).toEqual(["broker=edge-2:9092"]);

    const pruned = await beacon(["apply", "-f", folder, "--prune"], dev);
    expect(pruned, pruned.stderr).toMatchObject({ code: ExitCode.ok });
    expect(pruned.stderr).toBe("delete AgentParameter apply-agent-001/retired\nApplied: 1 change\n");
    expect(await ownValues("apply-agent-001")).toEqual(["broker=edge-1:9092"]);
    expect(await beacon(["diff", "-f", folder, "--prune"], dev)).toMatchObject({ code: ExitCode.ok });

    writeFileSync(
      path.join(folder, "agents.yaml"),
      [
        value("apply-agent-001", "broker", "edge-9:9092"),
        value("apply-agent-404", "broker", "edge-4:9092"),
      ].join("---\n"),
    );
    const before = new Date().toISOString();
    const refused = await beacon(["apply", "-f", folder], dev);
    expect(refused).toMatchObject({
      code: ExitCode.usage,
      stderr:
        "beacon: agents.yaml (document 2, AgentParameter apply-agent-404/broker): the tenant has no agent apply-agent-404\n",
    });
    expect(await writesSince(before, dev)).toEqual([]);
    expect(await ownValues("apply-agent-001")).toEqual(["broker=edge-1:9092"]);
  }, 240_000);
});

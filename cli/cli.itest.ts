/**
 * `beacon` as an operator runs it, against `npm start`: the bin itself in a process of its own, with a config
 * folder of its own. It signs in with a token and with the local identity provider (PKCE, its sign-in form
 * posted as a browser would), publishes a flow, rolls it out to simulated agents and watches the rollout to
 * its end, and exits 1 with the API's own message when the API refuses. Then an operator's and an admin's
 * other errands: a simulated agent's debug bundle requested, waited for and downloaded; two flow versions
 * diffed; a certificate issued from an openssl CSR and revoked; a webhook subscription's life; the audit trail.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_ASSET_BYTES } from "../functions/core/assets/model.js";
import { EnvNames } from "../functions/shared/env-names.js";
import { LOCAL_TOKEN_PATH } from "../scripts/local/web-server.js";
import {
  type LocalStack,
  repositoryRoot,
  startLocalStack,
  stopGroup,
} from "../scripts/test-support/local-stack.js";
import { until, untilTrue } from "../scripts/test-support/until.js";
import type { components } from "../web/src/api/schema.js";
import { flowJson, sha256 } from "../web/test/console-harness.js";
import { ExitCode } from "./exit.js";

type Schemas = components["schemas"];
const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const BIN = path.join(repositoryRoot, "cli", "beacon.mjs");
const FLEET = "cli-fleet";
const AGENTS = 3;
/** How long an upload's part links live: long enough for a part sent at once, short enough to wait out. */
const LINK_SECONDS = 15;
const MiB = 1024 * 1024;

let stack: LocalStack;
let webUrl: string;
let agents: ChildProcess | undefined;
/** Each test's own config folder, as another operator's home would be. */
const home = () => mkdtempSync(path.join(tmpdir(), "beacon-cli-itest-"));

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** `beacon` started in a process of its own: the process, what it wrote so far, and its outcome once it exits. */
function beaconStarted(configHome: string, args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH, XDG_CONFIG_HOME: configHome },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const written = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk: Buffer) => (written.stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (written.stderr += chunk.toString()));
  const outcome = new Promise<Outcome>((resolve) =>
    child.on("close", (code) => resolve({ code: code ?? -1, ...written })),
  );
  return { child, written, outcome };
}

/**
 * Signals `started` in the very turn it is seen to write a line matching `pattern` (its first group) to stderr,
 * while it has barely gone on: a check every so often would come too late, after a fast upload's parts are sent.
 */
function signalOnLine(
  started: ReturnType<typeof beaconStarted>,
  pattern: RegExp,
  signal: NodeJS.Signals,
): Promise<string> {
  return new Promise((resolve) => {
    const watch = () => {
      const seen = pattern.exec(started.written.stderr)?.[1];
      if (seen === undefined) return;
      started.child.stderr?.off("data", watch);
      started.child.kill(signal);
      resolve(seen);
    };
    started.child.stderr?.on("data", watch);
  });
}

const beacon = (configHome: string, args: string[]): Promise<Outcome> =>
  beaconStarted(configHome, args).outcome;

async function ok(configHome: string, args: string[]): Promise<string> {
  const outcome = await beacon(configHome, args);
  expect(outcome, `beacon ${args.join(" ")}`).toMatchObject({ code: ExitCode.ok });
  return outcome.stdout;
}

async function localToken(role: string): Promise<string> {
  const response = await fetch(`${webUrl}${LOCAL_TOKEN_PATH}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tenant: "dev", role }),
  });
  return ((await response.json()) as { token: string }).token;
}

beforeAll(async () => {
  stack = await startLocalStack("cli", {
    env: { BEACON_SWEEPER_INTERVAL_SECONDS: "2", [EnvNames.assetUploadLinkSeconds]: String(LINK_SECONDS) },
  });
  webUrl = `http://127.0.0.1:${stack.ports.web}`;
  // A class that heartbeats every second, so that a rollout's batches follow each other quickly.
  const response = await fetch(`${webUrl}/api/v1/classes/${FLEET}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${await localToken("admin")}`, "content-type": "application/json" },
    body: JSON.stringify({ heartbeatIntervalSeconds: 1 }),
  });
  expect(response.status).toBe(201);
  agents = spawn(
    "npm",
    ["run", "-s", "agents", "--", "--class", FLEET, "--count", String(AGENTS), "--interval", "1"],
    {
      cwd: repositoryRoot,
      env: stack.env,
      stdio: "ignore",
      detached: true,
    },
  );
}, 300_000);

afterAll(async () => {
  if (agents) await stopGroup(agents);
  await stack?.stop();
}, 60_000);

describe("beacon", () => {
  it("signs in with a token, publishes a flow, rolls it out and watches it to completed", async () => {
    const operator = home();
    await ok(operator, ["context", "add", "local", "--url", webUrl]);
    expect(await ok(operator, ["login", "--token", await localToken("operator")])).toBe(
      "Signed in to local as tenant dev\n",
    );
    expect(statSync(path.join(operator, "beacon", "config.json")).mode & 0o777).toBe(0o600);

    const listed = await until(
      `${AGENTS} agents of ${FLEET} to be listed`,
      async () => {
        const page = JSON.parse(
          await ok(operator, ["agents", "list", "--class", FLEET, "--json"]),
        ) as Schemas["AgentList"];
        return page.items.length === AGENTS ? page : undefined;
      },
      120_000,
    );
    const table = await ok(operator, ["agents", "list", "--class", FLEET]);
    expect(table.split("\n")[0]).toMatch(/^AGENT +CLASS +STATUS +LAST SEEN +FLOW +ATTENTION$/);
    for (const agent of listed.items) expect(table).toContain(agent.agentId);
    const shown = JSON.parse(
      await ok(operator, ["agents", "show", listed.items[0]?.agentId as string, "--json"]),
    );
    expect(shown).toMatchObject({ agentId: listed.items[0]?.agentId, agentClass: FLEET });

    const content = flowJson(FLEET, "org.apache.nifi.minifi.processors.GenerateFlowFile");
    const file = path.join(operator, "flow.json");
    writeFileSync(file, content);
    const published = JSON.parse(await ok(operator, ["flows", "publish", file, "--class", FLEET, "--json"]));
    expect(published).toMatchObject({ hash: sha256(content), className: FLEET, version: 1 });
    expect(await ok(operator, ["flows", "publish", file, "--class", FLEET])).toMatch(
      /^Already published: v1 of class cli-fleet\nHash: [0-9a-f]{64}\n$/,
    );

    const watched = await beacon(operator, [
      ...["rollouts", "start", "--class", FLEET, "--flow", published.hash, "--canary", "1"],
      ...["--batch-size", "2", "--batch-interval", "0", "--soak", "0", "--failure-threshold", "1"],
      ...["--on-failure", "pause", "--watch", "--interval", "1", "--json"],
    ]);
    expect(watched, watched.stderr).toMatchObject({ code: ExitCode.ok });
    const rollout = JSON.parse(watched.stdout) as Schemas["Rollout"];
    expect(rollout).toMatchObject({ className: FLEET, state: "completed", counts: { healthy: AGENTS } });
    expect(watched.stderr).toContain(`${rollout.rolloutId}: canary`);
    expect(watched.stderr).toContain(`${rollout.rolloutId}: completed`);
    expect(watched.stderr).toMatch(/^canary: 1 done$/m);
    expect(watched.stderr).toMatch(/^batch 1: 2 done$/m);

    const classes = JSON.parse(
      await ok(operator, ["classes", "show", FLEET, "--json"]),
    ) as Schemas["AgentClass"];
    expect(classes.flow?.target).toBe(published.hash);
    expect(await ok(operator, ["rollouts", "watch", rollout.rolloutId])).toMatch(/^State: +completed$/m);

    // The API refuses: a finished rollout cannot be paused. The API's own message, and exit code 1.
    const refused = await beacon(operator, ["rollouts", "pause", rollout.rolloutId]);
    expect(refused.code).toBe(ExitCode.refused);
    expect(refused.stdout).toBe("");
    const direct = await fetch(`${webUrl}/api/v1/rollouts/${rollout.rolloutId}/pause`, {
      method: "POST",
      headers: { authorization: `Bearer ${await localToken("operator")}` },
    });
    const { error } = (await direct.json()) as { error: { code: string; message: string } };
    expect(refused.stderr).toBe(`beacon: ${error.message} (${direct.status} ${error.code})\n`);

    const operations = JSON.parse(
      await ok(operator, ["operations", "list", "--agent", listed.items[0]?.agentId as string, "--json"]),
    );
    expect(operations.items).toContainEqual(expect.objectContaining({ operation: "UPDATE", state: "done" }));
  }, 300_000);

  it("signs in with the identity provider: PKCE with a loopback redirect, the sign-in form posted as a browser does", async () => {
    const viewer = home();
    await ok(viewer, ["context", "add", "local", "--url", webUrl]);
    const login = spawn(process.execPath, [BIN, "login", "--no-browser"], {
      env: { PATH: process.env.PATH, XDG_CONFIG_HOME: viewer },
    });
    let stderr = "";
    let stdout = "";
    login.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    login.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    const exited = new Promise<number | null>((resolve) => login.once("exit", resolve));
    const address = await until(
      "the sign-in address",
      async () => /^ {2}(http\S+)$/m.exec(stderr)?.[1],
      30_000,
    );
    expect(new URL(address).origin).toBe(webUrl);

    const page = await fetch(address);
    expect(page.status).toBe(200);
    const form = new URLSearchParams();
    for (const [, name, value] of (await page.text()).matchAll(
      /<input type="hidden" name="([^"]+)" value="([^"]*)">/g,
    )) {
      form.set(
        name as string,
        (value as string).replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))),
      );
    }
    expect(form.get("code_challenge_method")).toBe("S256");
    expect(form.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\/callback$/);
    form.set("tenant", "dev");
    form.set("role", "viewer");
    const signedIn = await fetch(`${webUrl}/oauth2/authorize`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
      redirect: "manual",
    });
    expect(signedIn.status).toBe(303);
    const back = await fetch(signedIn.headers.get("location") as string);
    expect(await back.text()).toMatch(/^Signed in to Beacon/);
    expect(await exited).toBe(0);
    expect(stdout).toBe("Signed in to local as tenant dev\n");

    const contexts = JSON.parse(await ok(viewer, ["context", "list", "--json"]));
    expect(contexts).toEqual([{ name: "local", current: true, url: webUrl, tenant: "dev", signedIn: true }]);
    const classes = JSON.parse(await ok(viewer, ["classes", "list", "--json"])) as Schemas["AgentClassList"];
    expect(classes.items.map(({ name }) => name)).toContain(FLEET);

    // An hour later the ID token has expired: the next command renews it with the refresh token login kept.
    const configFile = path.join(viewer, "beacon", "config.json");
    const kept = () => JSON.parse(readFileSync(configFile, "utf8")).contexts.local as Record<string, string>;
    const loggedIn = kept();
    expect(loggedIn.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const expiredToken = `e30.${Buffer.from(JSON.stringify({ exp: 1 })).toString("base64url")}.e30`;
    const keep = (context: Record<string, string>) =>
      writeFileSync(configFile, JSON.stringify({ current: "local", contexts: { local: context } }));
    keep({ ...loggedIn, token: expiredToken });
    const renewed = JSON.parse(await ok(viewer, ["classes", "list", "--json"])) as Schemas["AgentClassList"];
    expect(renewed.items.map(({ name }) => name)).toContain(FLEET);
    expect(kept().token).not.toBe(expiredToken);
    expect(kept().refreshToken).toBe(loggedIn.refreshToken);
    // A refresh token the provider no longer honours: sign in again, before any request to the API.
    keep({ ...loggedIn, token: expiredToken, refreshToken: "A".repeat(43) });
    const lapsed = await beacon(viewer, ["classes", "list"]);
    expect(lapsed.code).toBe(ExitCode.usage);
    expect(lapsed.stderr).toMatch(
      /^beacon: The sign-in to local has expired and could not be renewed \(.+\): beacon login\n/,
    );
    keep(loggedIn);

    // A viewer may read but not publish: the API's refusal, exit code 1.
    const file = path.join(viewer, "flow.yml");
    writeFileSync(file, "Flow Controller:\n  name: refused\n");
    const refused = await beacon(viewer, ["flows", "publish", file, "--class", FLEET]);
    expect(refused.code).toBe(ExitCode.refused);
    expect(refused.stderr).toMatch(/^beacon: .+ \(403 \w+\)\n$/);
  }, 120_000);
});

/** A config folder signed in with a token of this role. */
async function signedIn(role: string): Promise<string> {
  const folder = home();
  await ok(folder, ["context", "add", "local", "--url", webUrl]);
  await ok(folder, ["login", "--token", await localToken(role)]);
  return folder;
}

describe("beacon's debug bundles, flow diffs, certificates, webhooks and audit", () => {
  it("requests a debug bundle from a simulated agent, waits for it and downloads it streamed, its SHA-256 the API's", async () => {
    const operator = await signedIn("operator");
    const agentId = await until(
      `an agent of ${FLEET} with its manifest known`,
      async () =>
        (
          JSON.parse(
            await ok(operator, ["agents", "list", "--class", FLEET, "--json"]),
          ) as Schemas["AgentList"]
        ).items.find(({ manifestHash }) => manifestHash)?.agentId,
      120_000,
    );
    const created = JSON.parse(
      await ok(operator, ["bundles", "request", agentId, "--json"]),
    ) as Schemas["CreatedOperations"];
    const operationId = created.items[0]?.operationId as string;
    expect(created.items[0]).toMatchObject({
      agentId,
      operation: "TRANSFER",
      operand: "DEBUG",
      state: "queued",
    });

    const waited = await beacon(operator, [
      "bundles",
      "wait",
      operationId,
      "--timeout",
      "120",
      "--interval",
      "1",
      "--json",
    ]);
    expect(waited, waited.stderr).toMatchObject({ code: ExitCode.ok });
    const operation = JSON.parse(waited.stdout) as Schemas["Operation"];
    expect(operation).toMatchObject({ operationId, state: "done", confirmedBy: "bundle" });
    expect(waited.stderr.split("\n")).toContain(`${operationId}: done`);

    const listed = JSON.parse(
      await ok(operator, ["bundles", "list", "--agent", agentId, "--json"]),
    ) as Schemas["DebugBundleList"];
    const bundle = listed.items.find((item) => item.operationId === operationId);
    expect(bundle).toMatchObject({ agentId, bytes: operation.bundle?.bytes });
    expect(await ok(operator, ["bundles", "list", "--agent", agentId])).toContain(operationId);

    const file = path.join(operator, "bundle.tar.gz");
    const saved = JSON.parse(await ok(operator, ["bundles", "download", operationId, "-o", file, "--json"]));
    const bytes = readFileSync(file);
    expect(saved).toEqual({ file, bytes: bundle?.bytes, sha256: digest(bytes) });
    expect(existsSync(`${file}.part`)).toBe(false);
    // The bytes the API's own link serves, fetched apart from the CLI.
    const link = await fetch(
      `${webUrl}/api/v1/debug-bundles/${encodeURIComponent(operationId)}/content?redirect=false`,
      {
        headers: { authorization: `Bearer ${await localToken("operator")}` },
      },
    );
    const { location } = (await link.json()) as Schemas["DownloadLink"];
    expect(digest(new Uint8Array(await (await fetch(location)).arrayBuffer()))).toBe(saved.sha256);
    expect(execFileSync("tar", ["-tzf", file], { encoding: "utf8" })).toContain("manifest.json");

    const people = await ok(operator, ["bundles", "download", operationId, "-o", file]);
    expect(people).toMatch(new RegExp(`^SHA-256: +${saved.sha256}$`, "m"));

    // A viewer may list bundles but not download them: the API's refusal, exit 1, no file left.
    const viewer = await signedIn("viewer");
    const refused = await beacon(viewer, [
      "bundles",
      "download",
      operationId,
      "-o",
      path.join(viewer, "b.tgz"),
    ]);
    expect(refused.code).toBe(ExitCode.refused);
    expect(refused.stderr).toMatch(/^beacon: .+ \(403 \w+\)\n$/);
    expect(existsSync(path.join(viewer, "b.tgz"))).toBe(false);
  }, 300_000);

  it("diffs two published versions of a class, by version, hash or the start of one", async () => {
    const operator = await signedIn("operator");
    const className = "cli-diff";
    const put = await fetch(`${webUrl}/api/v1/classes/${className}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${await localToken("admin")}`, "content-type": "application/json" },
      body: JSON.stringify({ heartbeatIntervalSeconds: 30 }),
    });
    expect(put.status).toBeLessThan(300);
    const publish = async (content: string, label: string) => {
      const file = path.join(operator, `${label}.json`);
      writeFileSync(file, content);
      return JSON.parse(
        await ok(operator, ["flows", "publish", file, "--class", className, "--label", label, "--json"]),
      ) as Schemas["FlowVersion"];
    };
    const first = await publish(
      flowJson(className, "org.apache.nifi.minifi.processors.GenerateFlowFile"),
      "first",
    );
    const second = await publish(
      flowJson(className, "org.apache.nifi.minifi.processors.LogAttribute"),
      "second",
    );

    const diff = await ok(operator, ["flows", "diff", className, "v1", "v2"]);
    const lines = diff.split("\n");
    expect(lines[0]).toBe(`--- ${className} v${first.version} "first" ${first.hash}`);
    expect(lines[1]).toBe(`+++ ${className} v${second.version} "second" ${second.hash}`);
    expect(lines[2]).toMatch(/^@@ -\d+(,\d+)? \+\d+(,\d+)? @@$/);
    expect(lines).toContainEqual(expect.stringMatching(/^-.*GenerateFlowFile/));
    expect(lines).toContainEqual(expect.stringMatching(/^\+.*LogAttribute/));

    const scripted = JSON.parse(
      await ok(operator, ["flows", "diff", className, first.hash.slice(0, 8), second.hash, "--json"]),
    );
    expect(scripted).toEqual({
      from: { hash: first.hash, version: first.version, label: "first" },
      to: { hash: second.hash, version: second.version, label: "second" },
      diff: `${diff.trimEnd()}\n`,
    });
    expect(await ok(operator, ["flows", "diff", className, "v2", second.hash])).toMatch(
      /have the same content\n$/,
    );

    const missing = await beacon(operator, ["flows", "diff", className, "v1", "v9"]);
    expect(missing).toMatchObject({
      code: ExitCode.usage,
      stderr: `beacon: Class ${className} has no flow version v9\n`,
    });
  }, 120_000);

  it("issues a certificate from a CSR made by openssl, and revokes it; an operator's revocation is refused with the API's message", async () => {
    const admin = await signedIn("admin");
    const agentId = `cli-cert-${Date.now()}`;
    const key = path.join(admin, "agent.key");
    const csr = path.join(admin, "agent.csr");
    execFileSync("openssl", [
      ...["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"],
      ...["-keyout", key, "-out", csr, "-subj", `/CN=${agentId}`],
    ]);
    const certFile = path.join(admin, "agent.pem");
    const issued = JSON.parse(
      await ok(admin, [
        "certificates",
        "issue",
        "--csr",
        csr,
        "--agent",
        agentId,
        "--out",
        certFile,
        "--json",
      ]),
    ) as Schemas["IssuedCertificate"];
    expect(issued).toMatchObject({ kind: "agent", agentId, state: "valid" });
    expect(readFileSync(certFile, "utf8")).toBe(issued.certificatePem);
    // The certificate is for the CSR's key: the private key never left this folder.
    const publicKey = (args: string[]) => execFileSync("openssl", args, { encoding: "utf8" });
    expect(publicKey(["x509", "-in", certFile, "-noout", "-pubkey"])).toBe(
      publicKey(["pkey", "-in", key, "-pubout"]),
    );

    const shown = await ok(admin, ["certificates", "show", issued.serial]);
    expect(shown).toMatch(/^State: +valid$/m);

    const operator = await signedIn("operator");
    const refused = await beacon(operator, ["certificates", "revoke", issued.serial]);
    expect(refused.code).toBe(ExitCode.refused);
    expect(refused.stdout).toBe("");
    const direct = await fetch(`${webUrl}/api/v1/certificates/${issued.serial}/revoke`, {
      method: "POST",
      headers: { authorization: `Bearer ${await localToken("operator")}` },
    });
    const { error } = (await direct.json()) as { error: { code: string; message: string } };
    expect(refused.stderr).toBe(`beacon: ${error.message} (${direct.status} ${error.code})\n`);

    const unknownReason = await beacon(admin, ["certificates", "revoke", issued.serial, "--reason", "lost"]);
    expect(unknownReason.code).toBe(ExitCode.refused);
    expect(unknownReason.stderr).toMatch(/reason.*\(400 invalid_request\)\n$/);
    expect(await ok(admin, ["certificates", "revoke", issued.serial, "--reason", "keyCompromise"])).toMatch(
      new RegExp(`^Certificate ${issued.serial}: revoked at \\S+ \\(keyCompromise\\)\\n$`),
    );
    expect(await ok(admin, ["certificates", "show", issued.serial])).toMatch(
      /^Revoked: +\S+ \(keyCompromise\)$/m,
    );
    const listed = await until(
      `certificate ${issued.serial} listed for ${agentId}`,
      async () =>
        (
          JSON.parse(
            await ok(admin, ["certificates", "list", "--agent", agentId, "--json"]),
          ) as Schemas["CertificateList"]
        ).items.find((certificate) => certificate.serial === issued.serial),
      30_000,
    );
    expect(listed).toMatchObject({ state: "revoked" });

    // The audit trail holds both asks: the operator's refused, the admin's done.
    await until(
      "both revocations in the audit trail",
      async () => {
        const audit = JSON.parse(
          await ok(admin, ["audit", "list", "--operation", "revokeCertificate", "--json"]),
        ) as Schemas["AuditRecordList"];
        const seen = audit.items
          .filter((record) => record.target.serial === issued.serial)
          .map(({ actor, status }) => `${actor.role} ${status}`);
        return seen.includes("admin 200") && seen.includes("operator 403") ? seen : undefined;
      },
      30_000,
    );
    const table = await ok(admin, ["audit", "list", "--operation", "revokeCertificate"]);
    expect(table.split("\n")[0]).toMatch(/^AT +ACTOR +ROLE +OPERATION +TARGET +STATUS$/);
    expect(table).toContain(`serial=${issued.serial}`);
  }, 120_000);

  it("creates, lists, shows, enables and deletes a webhook subscription, its secret shown once", async () => {
    const admin = await signedIn("admin");
    const created = JSON.parse(
      await ok(admin, [
        ...["webhooks", "create", "--url", "https://hooks.example.com/beacon"],
        ...["--event", "agent.offline", "--event", "rollout.*", "--class", FLEET, "--json"],
      ]),
    ) as Schemas["CreatedSubscription"];
    expect(created).toMatchObject({
      eventTypes: ["agent.offline", "rollout.*"],
      agentClass: FLEET,
      state: "active",
    });
    expect(created.secret).toMatch(/^whsec_/);
    const listed = JSON.parse(await ok(admin, ["webhooks", "list", "--json"])) as Schemas["SubscriptionList"];
    expect(listed.items.map(({ subscriptionId }) => subscriptionId)).toContain(created.subscriptionId);
    const shown = await ok(admin, ["webhooks", "show", created.subscriptionId]);
    expect(shown).toMatch(/^Events: +agent\.offline, rollout\.\*$/m);
    expect(shown).not.toContain(created.secret);
    const deliveries = JSON.parse(
      await ok(admin, ["webhooks", "deliveries", created.subscriptionId, "--json"]),
    ) as Schemas["WebhookDeliveryList"];
    expect(Array.isArray(deliveries.items)).toBe(true);
    // Active, it is left so: enabling is harmless to repeat.
    expect(await ok(admin, ["webhooks", "enable", created.subscriptionId])).toBe(
      `Subscription ${created.subscriptionId} enabled\n`,
    );
    expect(
      JSON.parse(await ok(admin, ["webhooks", "enable", created.subscriptionId, "--json"])),
    ).toMatchObject({ subscriptionId: created.subscriptionId, state: "active" });
    expect(await ok(admin, ["webhooks", "delete", created.subscriptionId])).toBe(
      `Subscription ${created.subscriptionId} deleted\n`,
    );
    for (const command of ["show", "enable"]) {
      const gone = await beacon(admin, ["webhooks", command, created.subscriptionId]);
      expect(gone.code, command).toBe(ExitCode.refused);
      expect(gone.stderr).toMatch(/\(404 \w+\)\n$/);
    }
  }, 60_000);
});

describe("beacon's assets", () => {
  /** A file of random bytes in the folder; its SHA-256. */
  function randomFile(folder: string, name: string, bytes: number): { file: string; sha256: string } {
    const content = randomBytes(bytes);
    const file = path.join(folder, name);
    writeFileSync(file, content);
    return { file, sha256: digest(content) };
  }

  it("uploads a 12 MiB file in parts straight to storage, shows, lists and downloads it with the same bytes, pushes it to a class and deletes it", async () => {
    const operator = await signedIn("operator");
    const { file, sha256 } = randomFile(operator, "cli-model.onnx", 12 * MiB + 1000);
    const uploaded = await beacon(operator, ["assets", "upload", file, "--json"]);
    expect(uploaded, uploaded.stderr).toMatchObject({ code: ExitCode.ok });
    // Not a terminal: no progress line, only the upload's start.
    expect(uploaded.stderr).toMatch(
      /^Upload \S+: 2 part\(s\) of 8\.0 MiB at most, their links good until \S+\n$/,
    );
    const asset = JSON.parse(uploaded.stdout) as Schemas["Asset"];
    expect(asset).toMatchObject({ assetId: sha256, name: "cli-model.onnx", sizeBytes: 12 * MiB + 1000 });

    expect(await ok(operator, ["assets", "show", sha256])).toMatch(new RegExp(`^Asset: +${sha256}$`, "m"));
    const listed = JSON.parse(await ok(operator, ["assets", "list", "--json"])) as Schemas["AssetList"];
    expect(listed.items.map(({ assetId }) => assetId)).toContain(sha256);
    expect((await ok(operator, ["assets", "list"])).split("\n")[0]).toMatch(
      /^ASSET +NAME +SIZE +CREATED +USED BY$/,
    );
    // The same bytes under the same name again: nothing sent, the asset as stored.
    expect(await ok(operator, ["assets", "upload", file])).toContain("(already stored: nothing sent)");

    const saved = path.join(operator, "downloaded.onnx");
    const downloaded = JSON.parse(await ok(operator, ["assets", "download", sha256, "-o", saved, "--json"]));
    expect(downloaded).toEqual({ file: saved, bytes: 12 * MiB + 1000, sha256 });
    expect(digest(readFileSync(saved))).toBe(sha256);

    const pushed = JSON.parse(
      await ok(operator, ["classes", "set-resources", FLEET, `${sha256}:models`, "--json"]),
    ) as Schemas["ResourceSetPush"];
    expect(pushed.items).toEqual([{ assetId: sha256, name: "cli-model.onnx", path: "models" }]);
    expect(await ok(operator, ["classes", "resources", FLEET])).toMatch(
      new RegExp(`^${sha256} +cli-model\\.onnx +models$`, "m"),
    );
    const held = await beacon(operator, ["assets", "delete", sha256]);
    expect(held.code).toBe(ExitCode.refused);
    expect(held.stderr).toMatch(/\(409 \w+\)\n$/);
    await ok(operator, ["classes", "set-resources", FLEET]);
    expect(await ok(operator, ["assets", "delete", sha256])).toBe(`Deleted ${sha256} (cli-model.onnx)\n`);
    expect((await beacon(operator, ["assets", "show", sha256])).code).toBe(ExitCode.refused);
  }, 180_000);

  it("has a part whose link expired while the CLI was stopped signed again, and completes", async () => {
    const operator = await signedIn("operator");
    const { file, sha256 } = randomFile(operator, "cli-resigned.onnx", 2 * 8 * MiB + 1000);
    // Stopped as soon as the upload is declared: its parts go once the process is resumed, their links expired.
    const upload = beaconStarted(operator, ["assets", "upload", file, "--parallel", "1", "--json"]);
    const expiresAt = await signalOnLine(upload, /links good until (\S+)\n/, "SIGSTOP");
    await untilTrue("the part links to expire", () => Date.now() > Date.parse(expiresAt) + 1000, 60_000);
    upload.child.kill("SIGCONT");
    const outcome = await upload.outcome;
    expect(outcome, outcome.stderr).toMatchObject({ code: ExitCode.ok });
    expect(outcome.stderr).toContain("Part 3: refused by storage (its link expired?), signed again");
    expect(JSON.parse(outcome.stdout)).toMatchObject({ assetId: sha256, sizeBytes: 2 * 8 * MiB + 1000 });
    const saved = path.join(operator, "resigned.onnx");
    await ok(operator, ["assets", "download", sha256, "-o", saved]);
    expect(digest(readFileSync(saved))).toBe(sha256);
  }, 180_000);

  it("aborts the upload when interrupted (Ctrl-C), so that it can no longer complete", async () => {
    const operator = await signedIn("operator");
    const { file, sha256 } = randomFile(operator, "cli-interrupted.onnx", 2 * 8 * MiB + 1000);
    const upload = beaconStarted(operator, ["assets", "upload", file, "--parallel", "1"]);
    const uploadId = await signalOnLine(upload, /^Upload (\S+):.*\n/m, "SIGINT");
    const outcome = await upload.outcome;
    expect(outcome.code).toBe(ExitCode.interrupted);
    expect(outcome.stderr).toContain("beacon: Interrupted: the upload is aborted\n");
    const completed = await fetch(`${webUrl}/api/v1/assets/uploads/${uploadId}/complete`, {
      method: "POST",
      headers: { authorization: `Bearer ${await localToken("operator")}` },
    });
    expect(completed.status).toBe(404);
    expect((await beacon(operator, ["assets", "show", sha256])).code).toBe(ExitCode.refused);
  }, 120_000);

  it("refuses a file one byte over the limit before sending anything, and a viewer's upload with the API's message", async () => {
    const operator = await signedIn("operator");
    const tooLarge = path.join(operator, "too-large.bin");
    writeFileSync(tooLarge, "");
    truncateSync(tooLarge, MAX_ASSET_BYTES + 1);
    const refused = await beacon(operator, ["assets", "upload", tooLarge]);
    expect(refused.code).toBe(ExitCode.usage);
    expect(refused.stderr).toContain(`an asset is at most 100.0 MiB (${MAX_ASSET_BYTES} bytes)`);
    const listed = JSON.parse(await ok(operator, ["assets", "list", "--json"])) as Schemas["AssetList"];
    expect(listed.items.map(({ name }) => name)).not.toContain("too-large.bin");

    const viewer = await signedIn("viewer");
    const { file, sha256 } = randomFile(viewer, "viewer-model.onnx", 5 * MiB);
    const denied = await beacon(viewer, ["assets", "upload", file]);
    expect(denied.code).toBe(ExitCode.refused);
    expect(denied.stderr).toMatch(/^beacon: .+ \(403 \w+\)\n$/);
    expect((await beacon(operator, ["assets", "show", sha256])).code).toBe(ExitCode.refused);
  }, 120_000);
});

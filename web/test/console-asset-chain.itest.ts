/**
 * An asset's whole way on one `npm start`, as an operator and a MiNiFi Java agent take it: uploaded through the
 * Assets page (read for its SHA-256 in the page, sent in parts straight to storage by presigned URLs), put in a
 * class's resource set on the class's page, which queues SYNC RESOURCE, then downloaded over mutual TLS by the
 * real Apache NiFi C2 client library (org.apache.nifi:c2-client-http 2.3.0) and its SYNC RESOURCE handler, run
 * by the Java driver of scripts/interop with the stack's dev fleet certificate. A small asset is enough for the
 * chain: the 100 MiB halves are console-asset-upload.itest.ts (the page) and java-interop.itest.ts (the library).
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildJavaDriver,
  type DriverStep,
  type JavaDriverOptions,
  type ResourceStep,
  runJavaDriver,
  type SyncStep,
} from "../../scripts/interop/java-client.js";
import { acks, heartbeats } from "../../scripts/interop/java-rollout.js";
import { untilTrue } from "../../scripts/test-support/until.js";
import {
  agentGateway,
  api,
  capture,
  pageProblems,
  signedIn,
  startConsole,
  stopConsole,
} from "./console-harness.js";

/** A cold build resolves the library and Maven's plugins into ~/.m2 first; then `npm start` comes up. */
const SETUP_TIMEOUT_MS = 15 * 60_000;
const run = randomUUID().slice(0, 8);
const AGENT_CLASS = `asset-chain-${run}`;
const AGENT_ID = `java-asset-chain-${run}`;
const ASSET_NAME = "pump-labels.bin";
/** Two parts of the upload's 8 MiB and a bit would be slow for nothing: one part shows the path. */
const ASSET_BYTES = randomBytes(300 * 1024);
const ASSET_ID = createHash("sha256").update(ASSET_BYTES).digest("hex");

let webUrl: string;
let stateDir: string;
let driver: JavaDriverOptions;

const stepsOf = <T extends DriverStep>(steps: DriverStep[], name: T["step"]) =>
  steps.filter((step): step is T => step.step === name);

beforeAll(async () => {
  await buildJavaDriver();
  ({ webUrl } = await startConsole("web-console-asset-chain"));
  stateDir = mkdtempSync(path.join(tmpdir(), "beacon-asset-chain-agent-"));
  const gateway = agentGateway();
  driver = {
    url: gateway.url,
    certsDir: gateway.certsDir,
    certificate: gateway.fleetCertificate,
    agentId: AGENT_ID,
    agentClass: AGENT_CLASS,
    // Lower-case hex SHA-512 shape, as the Java agent computes it; fresh, so Beacon asks for the manifest.
    manifestHash: randomBytes(64).toString("hex"),
    compression: "gzip",
    stateDir,
  };
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stopConsole();
  if (stateDir !== undefined) rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe("an asset from the browser to a real MiNiFi Java C2 client", () => {
  it("is uploaded on the Assets page, pushed from the class's page, and downloaded by the library's SYNC RESOURCE handler with its digest", async () => {
    // The agent's first run registers it in its class, with its manifest, which lists SYNC RESOURCE.
    const registered = await runJavaDriver(driver);
    expect(acks(registered)).toMatchObject([{ operation: "DESCRIBE", state: "FULLY_APPLIED" }]);

    const page = await signedIn("operator", "/assets");
    await page.getByRole("heading", { name: "Assets", level: 1 }).waitFor();
    await page.getByLabel("File").setInputFiles({
      name: ASSET_NAME,
      mimeType: "application/octet-stream",
      buffer: ASSET_BYTES,
    });
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await page.getByText(`Stored ${ASSET_NAME} (300.0 KiB) as ${ASSET_ID.slice(0, 12)}…`).waitFor();

    await page.goto(`${webUrl}/classes/${AGENT_CLASS}`);
    const resources = page.getByRole("region", { name: "Resource set" });
    await resources.getByText("Change the resource set").click();
    await resources.getByLabel(new RegExp(`^${ASSET_NAME.replace(".", "\\.")} \\(`)).check();
    await resources.getByLabel(`Folder for ${ASSET_NAME} (optional)`).fill("labels");
    await resources.getByRole("button", { name: "Save and push to the agents" }).click();
    await resources.getByText(/^Saved 1 asset: SYNC RESOURCE queued for 1 agent\b/).waitFor();
    await capture(page, "asset-chain-resources");
    const { body: set } = await api<{ digest: string }>(`/classes/${AGENT_CLASS}/resources`);

    const steps = await runJavaDriver(driver);
    const [before, after] = heartbeats(steps);
    const [sync] = before?.operations ?? [];
    expect(sync).toMatchObject({ operation: "SYNC", operand: "RESOURCE" });
    expect(stepsOf<ResourceStep>(steps, "resource")).toEqual([
      expect.objectContaining({
        resourceId: ASSET_ID,
        action: "downloaded",
        file: `repository/labels/${ASSET_NAME}`,
        bytes: ASSET_BYTES.length,
        sha256: ASSET_ID,
        http: expect.objectContaining({ path: `/c2/api/assets/${ASSET_ID}/content`, status: 200 }),
      }),
    ]);
    const kept = readFileSync(path.join(stateDir, "asset", "repository", "labels", ASSET_NAME));
    expect(kept.equals(ASSET_BYTES)).toBe(true);
    expect(stepsOf<SyncStep>(steps, "sync")).toMatchObject([
      { operationId: sync?.identifier, state: "FULLY_APPLIED", resourcesHash: set.digest },
    ]);
    expect(acks(steps)).toMatchObject([{ state: "FULLY_APPLIED", http: { status: 200 } }]);
    expect(after).toMatchObject({ operations: [], resourcesHash: set.digest });

    // The operator sees it done, and the agent holding the class's set.
    await untilTrue(
      "the SYNC RESOURCE to be done",
      async () => (await api<{ state: string }>(`/operations/${sync?.identifier}`)).body.state === "done",
      30_000,
    );
    await page.goto(`${webUrl}/agents/${AGENT_ID}`);
    await page.getByRole("heading", { name: AGENT_ID, level: 1 }).waitFor();
    await capture(page, "asset-chain-agent");
    expect((await api<{ resourceHash: string }>(`/agents/${AGENT_ID}`)).body.resourceHash).toBe(set.digest);
    await page.context().close();
  }, 300_000);

  it("leaves no problem on the page", () => {
    expect(pageProblems).toEqual([]);
  });
});

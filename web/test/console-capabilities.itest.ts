/**
 * What the console API offers, done in the browser: debug bundles asked for, listed and downloaded; a class's
 * settings and resource set changed; assets uploaded with progress; an agent's certificates listed and revoked;
 * and none of their forms shown to a viewer. Debian's Chromium against `npm start` with a simulated agent.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  capture,
  issuedAgentCertificate,
  localToken,
  pageProblems,
  signedIn,
  simulatedAgents,
  startConsole,
  stopConsole,
  untilRegistered,
} from "./console-harness.js";

const AGENT_CLASS = "capable";
const AGENT_ID = "capable-agent-001";
/** 3 MiB of varied bytes: large enough that the upload reports progress on its way. */
const ASSET_BYTES = Buffer.from(Array.from({ length: 3 * 1024 * 1024 }, (_, index) => (index * 7919) % 251));
const ASSET_NAME = "calibration.bin";
const ASSET_ID = createHash("sha256").update(ASSET_BYTES).digest("hex");

let webUrl: string;

/** The action is in view inside its table's frame at the desktop width: the table does not hide it by scrolling. */
async function expectUnclipped(action: Locator, frame: Locator): Promise<void> {
  const [inner, outer] = await Promise.all([action.boundingBox(), frame.boundingBox()]);
  expect(inner && outer && inner.x + inner.width <= outer.x + outer.width).toBe(true);
}

beforeAll(async () => {
  ({ webUrl } = await startConsole("web-console-capabilities"));
  simulatedAgents(["--class", AGENT_CLASS, "--count", "1", "--interval", "2"]);
  await untilRegistered(AGENT_CLASS, 1);
}, 300_000);

afterAll(stopConsole, 60_000);

describe("every capability in the browser", () => {
  it("requests a debug bundle from an agent's page, lists it and downloads its bytes", async () => {
    const page = await signedIn("operator", `/agents/${AGENT_ID}`);
    const section = page.getByRole("region", { name: "Debug bundles", exact: true });
    await section.getByRole("button", { name: "Request a debug bundle" }).click();
    await section.getByText("Asked: the agent uploads its bundle after its next heartbeat.").waitFor();
    // The section follows the operation until the simulated agent has uploaded its bundle.
    const listed = section.getByRole("region", { name: "The agent's debug bundles" });
    const download = listed.getByRole("button", { name: "Download" });
    await download.waitFor();
    await expectUnclipped(download, listed);
    await capture(page, "agent-debug-bundles");

    const { body } = await api<{ items: { operationId: string; agentId: string; bytes: number }[] }>(
      "/debug-bundles",
    );
    const [bundle] = body.items.filter(({ agentId }) => agentId === AGENT_ID);
    const operationId = bundle?.operationId as string;
    expect(await listed.getByText(operationId).count()).toBe(1);
    const [saved] = await Promise.all([page.waitForEvent("download"), download.click()]);
    expect(saved.suggestedFilename()).toBe(`debug-${operationId.replace(/[^A-Za-z0-9._-]/g, "_")}.tar.gz`);
    const downloaded = await readFile(await saved.path());
    // The API's own content route, as curl follows it: a redirect to the bytes.
    const link = await fetch(`${webUrl}/api/v1/debug-bundles/${encodeURIComponent(operationId)}/content`, {
      headers: { authorization: `Bearer ${await localToken("operator")}` },
      redirect: "manual",
    });
    expect(link.status).toBe(302);
    const bytes = Buffer.from(await (await fetch(link.headers.get("location") as string)).arrayBuffer());
    expect(bytes.length).toBe(bundle?.bytes);
    expect(downloaded.equals(bytes)).toBe(true);

    // The tenant's bundles on the Operations page, whose form offers TRANSFER DEBUG too.
    await page.getByRole("link", { name: "Operations", exact: true }).click();
    const tenantBundles = page.getByRole("region", { name: "Debug bundles", exact: true });
    await tenantBundles.getByRole("row").filter({ hasText: operationId }).waitFor();
    await page.getByText("Create operations").click();
    expect(await page.locator("select[name=kind] option", { hasText: "TRANSFER DEBUG" }).count()).toBe(1);
    await capture(page, "operations-debug-bundles");
    await page.context().close();
  });

  it("edits a class's settings, saying in words what it refuses", async () => {
    const page = await signedIn("operator", `/classes/${AGENT_CLASS}`);
    await page.getByText("Change the class's settings").click();
    await page.getByLabel("Heartbeat interval (seconds)").fill("0");
    await page.getByLabel("Acknowledgement timeout (seconds)").fill("5");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: "The heartbeat interval must be a whole number of seconds from 1 to 86,400." })
      .waitFor();
    await page
      .getByRole("alert")
      .filter({ hasText: "The acknowledgement timeout must be a whole number of seconds from 10 to 86,400." })
      .waitFor();
    await capture(page, "class-settings-refused");
    expect((await api<{ heartbeatIntervalSeconds: number }>(`/classes/${AGENT_CLASS}`)).body).toMatchObject({
      heartbeatIntervalSeconds: 60,
    });

    await page.getByLabel("Description").fill("Agents that do everything");
    await page.getByLabel("Heartbeat interval (seconds)").fill("10");
    await page.getByLabel("Acknowledgement timeout (seconds)").fill("45");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Saved: the class's agents are held to these from their next heartbeat.").waitFor();
    await page.getByText("45 s", { exact: true }).waitFor();
    expect((await api(`/classes/${AGENT_CLASS}`)).body).toMatchObject({
      description: "Agents that do everything",
      heartbeatIntervalSeconds: 10,
      ackTimeoutSeconds: 45,
    });
    await capture(page, "class-settings");
    await page.context().close();
  });

  it("uploads an asset with progress and puts it in a class's resource set", async () => {
    const page = await signedIn("operator", "/assets");
    await page.getByRole("heading", { name: "Assets", level: 1 }).waitFor();
    // A file whose own name no asset may have: the page suggests one, and says in words why it refuses another.
    await page.getByLabel("File").setInputFiles({
      name: "calibration table.bin",
      mimeType: "application/octet-stream",
      buffer: ASSET_BYTES,
    });
    const name = page.getByLabel("Name agents keep it under");
    expect(await name.inputValue()).toBe("calibration-table.bin");
    await name.fill("../calibration.bin");
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: `"../calibration.bin" cannot be an asset's name` })
      .waitFor();
    expect((await api(`/assets/${ASSET_ID}`)).status).toBe(404);
    await name.fill(ASSET_NAME);
    await page.getByRole("button", { name: "Upload", exact: true }).click();
    await page.getByText(`Stored ${ASSET_NAME} (3.0 MiB) as ${ASSET_ID.slice(0, 12)}…`).waitFor();
    // The bar ends full, as the request's upload reported it.
    const bar = page.getByRole("progressbar");
    expect(await bar.getAttribute("value")).toBe(String(ASSET_BYTES.length));
    expect(await bar.getAttribute("max")).toBe(String(ASSET_BYTES.length));
    await page.getByRole("row").filter({ hasText: ASSET_NAME }).waitFor();
    await capture(page, "assets");
    expect((await api<{ sizeBytes: number }>(`/assets/${ASSET_ID}`)).body.sizeBytes).toBe(ASSET_BYTES.length);

    await page.goto(`${webUrl}/classes/${AGENT_CLASS}`);
    const resources = page.getByRole("region", { name: "Resource set" });
    await resources.getByText("The class's agents get no asset from Beacon.").waitFor();
    await resources.getByText("Change the resource set").click();
    await resources.getByLabel(new RegExp(`^${ASSET_NAME.replace(".", "\\.")} \\(`)).check();
    await resources.getByLabel(`Folder for ${ASSET_NAME} (optional)`).fill("tables");
    await resources.getByRole("button", { name: "Save and push to the agents" }).click();
    await resources.getByText(/^Saved 1 asset: SYNC RESOURCE queued for \d+ agents?/).waitFor();
    await resources
      .getByRole("region", { name: "The class's resource set" })
      .getByRole("row")
      .filter({ hasText: "tables" })
      .waitFor();
    expect((await api(`/classes/${AGENT_CLASS}/resources`)).body).toMatchObject({
      items: [{ assetId: ASSET_ID, name: ASSET_NAME, path: "tables" }],
    });
    await capture(page, "class-resources");

    // An asset a resource set holds cannot go: the API's refusal, in its words.
    await page.goto(`${webUrl}/assets`);
    const row = page.getByRole("row").filter({ hasText: ASSET_NAME });
    await row.getByRole("button", { name: "Delete…" }).click();
    await row.getByRole("button", { name: `Delete ${ASSET_NAME}` }).click();
    await row.getByRole("alert").filter({ hasText: AGENT_CLASS }).waitFor();
    expect((await api(`/assets/${ASSET_ID}`)).status).toBe(200);
    await page.context().close();
  });

  it("lists an agent's certificates on its page and lets an admin revoke one", async () => {
    const serial = await issuedAgentCertificate(AGENT_ID);
    const page = await signedIn("admin", `/agents/${AGENT_ID}`);
    const section = page.getByRole("region", { name: "Certificates", exact: true });
    const row = section.getByRole("row").filter({ hasText: serial });
    await row.getByText("valid", { exact: true }).waitFor();
    await row.getByRole("button", { name: "Revoke…" }).click();
    await row.getByText(`${AGENT_ID} can no longer reach Beacon with this certificate`).waitFor();
    await expectUnclipped(row.getByRole("button", { name: `Revoke ${serial}` }), section.getByRole("region"));
    await capture(page, "agent-certificate-revoke");
    await row.getByRole("button", { name: `Revoke ${serial}` }).click();
    await row.getByText("revoked", { exact: true }).waitFor();
    expect((await api<{ state: string }>(`/certificates/${serial}`)).body.state).toBe("revoked");
    await capture(page, "agent-certificates");
    await page.context().close();
  });

  it("shows a viewer the bundles, settings, assets and resource set, with none of their forms", async () => {
    const page = await signedIn("viewer", `/agents/${AGENT_ID}`);
    const bundles = page.getByRole("region", { name: "Debug bundles", exact: true });
    await bundles.getByRole("region", { name: "The agent's debug bundles" }).waitFor();
    expect(await bundles.getByRole("button").count()).toBe(0);
    expect(
      await page.getByRole("region", { name: "Certificates", exact: true }).getByRole("button").count(),
    ).toBe(0);
    await capture(page, "agent-capabilities-as-viewer");

    await page.goto(`${webUrl}/classes/${AGENT_CLASS}`);
    await page
      .getByRole("region", { name: "The class's resource set" })
      .getByRole("row")
      .filter({ hasText: ASSET_NAME })
      .waitFor();
    expect(await page.getByText("Change the class's settings").count()).toBe(0);
    expect(await page.getByText("Change the resource set").count()).toBe(0);
    await capture(page, "class-capabilities-as-viewer");

    await page.getByRole("link", { name: "Assets", exact: true }).click();
    await page.getByRole("row").filter({ hasText: ASSET_NAME }).waitFor();
    expect(await page.getByText("Upload an asset").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Delete…" }).count()).toBe(0);
    await capture(page, "assets-as-viewer");

    await page.getByRole("link", { name: "Operations", exact: true }).click();
    const tenantBundles = page.getByRole("region", { name: "Debug bundles", exact: true });
    await tenantBundles.getByRole("row").nth(1).waitFor();
    expect(await tenantBundles.getByRole("button", { name: "Download" }).count()).toBe(0);
    await page.context().close();
  });

  it("ran every page without an uncaught error or a Content-Security-Policy refusal", () => {
    expect(pageProblems).toEqual([]);
  });
});

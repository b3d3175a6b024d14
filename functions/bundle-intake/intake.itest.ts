import { createHash, randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleForm, multipartForm } from "../../scripts/common/debug-bundle-form.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import {
  agentAwaitingBundle,
  downloadBundle,
  nothingStored,
  storedBundle,
  uploadBundle,
} from "../../scripts/test-support/debug-bundles.js";
import { until } from "../../scripts/test-support/until.js";
import { DEBUG_BUNDLE_MAX_BYTES } from "../core/bundles/model.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let fleet: string;
let operator: string;
let unique = 0;

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** A registered agent of the tenant with a TRANSFER DEBUG delivered to it. */
const delivered = () => agentAwaitingBundle(agentApi, consoleApi, { fleet, operator }, `edge-${++unique}`);

const stored = (operationId: string) => storedBundle(tenant, operationId);

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  tenant = `bundles-${randomUUID().slice(0, 8)}`;
  fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  operator = await consoleApi.token({ tenant, role: "operator" });
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

describe("the streaming bundle intake, behind the local mutual-TLS gateway", () => {
  it("takes a bundle of exactly 16 MiB, which the console lists and serves byte for byte through a short-lived link, and the ack closes done", async () => {
    const { agentId, operationId, uploadPath } = await delivered();
    const bundle = randomBytes(DEBUG_BUNDLE_MAX_BYTES);
    const uploaded = await uploadBundle(agentApi, uploadPath, bundle, fleet);
    expect(uploaded.status, uploaded.body).toBe(201);
    expect(uploaded.json()).toMatchObject({ operationId, bytes: DEBUG_BUNDLE_MAX_BYTES });
    expect(await stored(operationId)).toEqual({ objects: [DEBUG_BUNDLE_MAX_BYTES], uploads: 0 });

    const listed = await consoleApi.request("GET", "/api/v1/debug-bundles", { token: operator });
    expect(listed.json().items).toEqual([
      expect.objectContaining({ operationId, agentId, bytes: DEBUG_BUNDLE_MAX_BYTES }),
    ]);
    const downloaded = await downloadBundle(consoleApi, operator, operationId);
    expect(sha256(downloaded.bytes)).toBe(sha256(bundle));
    expect(downloaded.headers.get("content-type")).toBe("application/gzip");
    expect(downloaded.headers.get("content-disposition")).toMatch(/attachment; filename="debug-.*\.tar\.gz"/);

    // Only operators and admins download; who did, or tried, is in the audit trail, never the link itself.
    const viewer = await consoleApi.token({ tenant, role: "viewer" });
    const refused = await consoleApi.request("GET", `/api/v1/debug-bundles/${operationId}/content`, {
      token: viewer,
    });
    expect(refused.status).toBe(403);
    // A web page cannot read a redirect: it asks for the same kind of link in the body, and navigates to it.
    const inBody = await consoleApi.request(
      "GET",
      `/api/v1/debug-bundles/${operationId}/content?redirect=false`,
      { token: operator },
    );
    expect(inBody.status).toBe(200);
    const linked = await fetch(inBody.json().location as string);
    expect(sha256(new Uint8Array(await linked.arrayBuffer()))).toBe(sha256(bundle));
    const admin = await consoleApi.token({ tenant, role: "admin" });
    const trail = await consoleApi.request("GET", "/api/v1/audit?operation=downloadDebugBundle", {
      token: admin,
    });
    const downloads = (trail.json().items as { actor: { role: string }; status: number }[]).map((record) => [
      record.actor.role,
      record.status,
    ]);
    expect(downloads).toEqual(
      expect.arrayContaining([
        ["viewer", 403],
        ["operator", 302],
      ]),
    );
    expect(trail.body).not.toContain(downloaded.location);

    const ack = { operationId, operationState: { state: "FULLY_APPLIED" } };
    expect((await agentApi.post("/c2/api/acknowledge", ack, { certificate: fleet })).status).toBe(200);
    const operation = await consoleApi.request("GET", `/api/v1/operations/${operationId}`, {
      token: operator,
    });
    expect(operation.json()).toMatchObject({
      state: "done",
      confirmedBy: "bundle",
      bundle: { bytes: DEBUG_BUNDLE_MAX_BYTES },
    });
  });

  it("refuses one byte more with 413 naming the limit, and stores nothing", async () => {
    const { operationId, uploadPath } = await delivered();
    const refused = await uploadBundle(agentApi, uploadPath, randomBytes(DEBUG_BUNDLE_MAX_BYTES + 1), fleet);
    expect(refused.status).toBe(413);
    expect(refused.json()).toEqual({
      error: {
        code: "debug_bundle_too_large",
        message: expect.stringContaining(String(DEBUG_BUNDLE_MAX_BYTES)),
      },
    });
    expect(await stored(operationId)).toEqual(nothingStored);
    const bundle = await consoleApi.request("GET", `/api/v1/debug-bundles/${operationId}`, {
      token: operator,
    });
    expect(bundle.status).toBe(404);
  });

  it("refuses a body that is no form (415), a form without the part file or cut short (400), storing nothing", async () => {
    const { operationId, uploadPath } = await delivered();
    const raw = await agentApi.post(uploadPath, undefined, {
      certificate: fleet,
      rawBody: gzipSync("a bundle sent raw"),
      headers: { "content-type": "application/gzip" },
    });
    expect(raw.status).toBe(415);
    expect(raw.json()).toMatchObject({ error: { code: "unsupported_media_type" } });
    const form = multipartForm([{ name: "bundle", filename: "debug.tar.gz", bytes: gzipSync("x") }]);
    const misnamed = await agentApi.post(uploadPath, undefined, {
      certificate: fleet,
      rawBody: form.body,
      headers: { "content-type": form.contentType },
    });
    expect(misnamed.status).toBe(400);
    expect(misnamed.json()).toMatchObject({ error: { message: expect.stringContaining('"file"') } });
    // A form whose bundle breaks off: the body ends before the part's closing boundary.
    const whole = bundleForm(randomBytes(6 * 1024 * 1024));
    const cut = await agentApi.post(uploadPath, undefined, {
      certificate: fleet,
      rawBody: whole.body.subarray(0, whole.body.length - 1024),
      headers: { "content-type": whole.contentType },
    });
    expect(cut.status).toBe(400);
    expect(cut.json()).toMatchObject({ error: { code: "invalid_payload" } });
    expect(await stored(operationId)).toEqual(nothingStored);
  });

  it("takes the bundle from the operation's agent certificate, not another agent's nor another tenant's", async () => {
    const { agentId, operationId, uploadPath } = await delivered();
    const other = await agentApi.issueCertificate({ tenant, agentId: "someone-else" });
    const stranger = await agentApi.issueCertificate({ tenant: `${tenant}-other`, fleet: true });
    const bundle = gzipSync("logs");
    expect((await uploadBundle(agentApi, uploadPath, bundle, other)).status).toBe(403);
    expect((await uploadBundle(agentApi, uploadPath, bundle, stranger)).status).toBe(404);
    expect(await stored(operationId)).toEqual(nothingStored);
    const own = await agentApi.issueCertificate({ tenant, agentId });
    expect((await uploadBundle(agentApi, uploadPath, bundle, own)).status).toBe(201);
  });

  it("takes one bundle per operation: a second upload is refused with 409 and the first kept", async () => {
    const { operationId, uploadPath } = await delivered();
    const first = gzipSync("first");
    expect((await uploadBundle(agentApi, uploadPath, first, fleet)).status).toBe(201);
    const again = await uploadBundle(agentApi, uploadPath, gzipSync("second, longer"), fleet);
    expect(again.status).toBe(409);
    expect(again.json()).toMatchObject({ error: { code: "debug_bundle_exists" } });
    expect(await stored(operationId)).toEqual({ objects: [first.length], uploads: 0 });
  });

  it("streams a slow client's bundle to the bucket as it arrives, completing it only when it has all of it", async () => {
    const { operationId, uploadPath } = await delivered();
    const bundle = randomBytes(12 * 1024 * 1024);
    const form = bundleForm(bundle);
    const certsDir = agentApi.certsDir;
    const client = new Agent({
      ca: readFileSync(path.join(certsDir, "ca.pem")),
      cert: readFileSync(path.join(certsDir, `${fleet}.pem`)),
      key: readFileSync(path.join(certsDir, `${fleet}.key`)),
    });
    const answered = new Promise<number>((resolve, reject) => {
      const outgoing = request(
        new URL(uploadPath, agentApi.url),
        { method: "POST", agent: client, headers: { "content-type": form.contentType } },
        (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
        },
      );
      outgoing.on("error", reject);
      // Two thirds of it, then nothing until the bucket holds a part of it: the intake never waits for the rest.
      const held = Math.floor(form.body.length * (2 / 3));
      outgoing.write(form.body.subarray(0, held));
      until("a part of the bundle in the bucket while the client holds back the rest", async () => {
        const { objects, uploads } = await stored(operationId);
        expect(objects).toEqual([]);
        return uploads > 0 ? true : undefined;
      }).then(
        () => outgoing.end(form.body.subarray(held)),
        (error: unknown) => outgoing.destroy(error as Error),
      );
    });
    expect(await answered).toBe(201);
    expect(await stored(operationId)).toEqual({ objects: [bundle.length], uploads: 0 });
    client.destroy();
  });
});

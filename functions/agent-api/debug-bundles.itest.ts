/**
 * Debug bundles through the HTTP API ingress: API Gateway hands the whole upload to the agent-api function in
 * one invocation, so it takes bundles up to HTTP_API_DEBUG_BUNDLE_MAX_BYTES and refuses larger ones with the
 * streaming intake's 413.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import {
  agentAwaitingBundle,
  downloadBundle,
  nothingStored,
  storedBundle,
  uploadBundle,
} from "../../scripts/test-support/debug-bundles.js";
import { DEBUG_BUNDLE_MAX_BYTES, HTTP_API_DEBUG_BUNDLE_MAX_BYTES } from "../core/bundles/model.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let fleet: string;
let operator: string;
let unique = 0;

/** A registered agent of the tenant with a TRANSFER DEBUG delivered to it. */
const delivered = () =>
  agentAwaitingBundle(agentApi, consoleApi, { fleet, operator }, `lambda-edge-${++unique}`);

beforeAll(async () => {
  agentApi = await startAgentApi({}, "function");
  consoleApi = await startConsoleApi(agentApi);
  tenant = `bundles-fn-${randomUUID().slice(0, 8)}`;
  fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  operator = await consoleApi.token({ tenant, role: "operator" });
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

describe("debug bundles through the agent-api function (the HTTP API ingress)", () => {
  it("takes a bundle of 4.5 MB, stored and served as sent, and the ack closes the operation done", async () => {
    const { operationId, uploadPath } = await delivered();
    const bundle = randomBytes(HTTP_API_DEBUG_BUNDLE_MAX_BYTES);
    const uploaded = await uploadBundle(agentApi, uploadPath, bundle, fleet);
    expect(uploaded.status, uploaded.body).toBe(201);
    expect(uploaded.json()).toMatchObject({ operationId, bytes: HTTP_API_DEBUG_BUNDLE_MAX_BYTES });
    expect(await storedBundle(tenant, operationId)).toEqual({ objects: [bundle.length], uploads: 0 });
    expect(Buffer.from((await downloadBundle(consoleApi, operator, operationId)).bytes).equals(bundle)).toBe(
      true,
    );
    const ack = { operationId, operationState: { state: "FULLY_APPLIED" } };
    expect((await agentApi.post("/c2/api/acknowledge", ack, { certificate: fleet })).status).toBe(200);
    const operation = await consoleApi.request("GET", `/api/v1/operations/${operationId}`, {
      token: operator,
    });
    expect(operation.json()).toMatchObject({ state: "done", confirmedBy: "bundle" });
  });

  it("refuses one byte more with 413 naming this ingress's limit and the agent service's, storing nothing", async () => {
    const { operationId, uploadPath } = await delivered();
    const refused = await uploadBundle(
      agentApi,
      uploadPath,
      randomBytes(HTTP_API_DEBUG_BUNDLE_MAX_BYTES + 1),
      fleet,
    );
    expect(refused.status).toBe(413);
    expect(refused.json()).toMatchObject({
      error: {
        code: "debug_bundle_too_large",
        message: expect.stringMatching(
          new RegExp(`${HTTP_API_DEBUG_BUNDLE_MAX_BYTES} bytes.*${DEBUG_BUNDLE_MAX_BYTES} bytes`),
        ),
      },
    });
    expect(await storedBundle(tenant, operationId)).toEqual(nothingStored);
    // Refused as the streaming intake refuses: a raw body, and another agent's certificate.
    const raw = await agentApi.post(uploadPath, undefined, {
      certificate: fleet,
      rawBody: gzipSync("raw"),
      headers: { "content-type": "application/gzip" },
    });
    expect(raw.status).toBe(415);
    const other = await agentApi.issueCertificate({ tenant, agentId: "someone-else" });
    expect((await uploadBundle(agentApi, uploadPath, gzipSync("logs"), other)).status).toBe(403);
    expect(await storedBundle(tenant, operationId)).toEqual(nothingStored);
  });
});

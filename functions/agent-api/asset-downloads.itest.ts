/**
 * Asset downloads through the agent-api function, as behind the HTTP API ingress (`agentIngress=api`), which
 * cannot stream: an invocation answers with one body, so the function reads an asset whole up to what that body
 * carries and refuses a larger one in words, its stream let go unread. Behind the load balancer and locally,
 * assets stream whatever their size (scripts/interop/java-interop.itest.ts downloads 100 MiB so).
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { S3AssetContent } from "../adapters/s3/asset-content.js";
import { makeS3Client } from "../runtime/aws-clients.js";
import { FUNCTION_RESPONSE_BODY_MAX_BYTES } from "../shared/agent-request.js";
import { EnvNames } from "../shared/env-names.js";

let api: AgentApiUnderTest;
let fleet: string;
let assets: S3AssetContent;
const tenant = `t-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  api = await startAgentApi({}, "function");
  fleet = await api.issueCertificate({ tenant, fleet: true });
  assets = new S3AssetContent(makeS3Client(api.env), api.env[EnvNames.assetBucket] as string);
});

afterAll(async () => {
  await api?.close();
});

async function stored(sizeBytes: number): Promise<{ assetId: string; bytes: Buffer }> {
  const bytes = randomBytes(sizeBytes);
  const assetId = createHash("sha256").update(bytes).digest("hex");
  await assets.put(tenant, assetId, bytes, "application/octet-stream");
  return { assetId, bytes };
}

it("serves an asset of what an invocation carries whole, with its entity tag", async () => {
  const { assetId, bytes } = await stored(FUNCTION_RESPONSE_BODY_MAX_BYTES);
  const response = await api.get(`/c2/api/assets/${assetId}/content`, { certificate: fleet });
  expect(response.status, response.body.slice(0, 200)).toBe(200);
  expect(response.headers).toMatchObject({
    etag: `"${assetId}"`,
    "content-type": "application/octet-stream",
  });
  expect(response.bytes.equals(bytes)).toBe(true);
});

it("refuses a larger asset with 501 content_too_large_for_ingress, naming the ingress that serves it", async () => {
  const { assetId } = await stored(FUNCTION_RESPONSE_BODY_MAX_BYTES + 1);
  const response = await api.get(`/c2/api/assets/${assetId}/content`, { certificate: fleet });
  expect(response.status).toBe(501);
  expect(response.json()).toMatchObject({
    error: { code: "content_too_large_for_ingress", message: expect.stringContaining("agentIngress=alb") },
  });
  // Its stream was let go: the function goes on answering.
  const again = await api.get(`/c2/api/assets/${assetId}/content`, {
    certificate: fleet,
    headers: { "if-none-match": `"${assetId}"` },
  });
  expect(again.status).toBe(304);
});

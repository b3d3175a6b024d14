import { ListMultipartUploadsCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { expect, inject } from "vitest";
import { makeS3Client } from "../../functions/runtime/aws-clients/s3.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { bundleForm } from "../common/debug-bundle-form.js";
import type { AgentApiClient } from "./agent-api-harness.js";
import type { ConsoleApiUnderTest } from "./console-api-harness.js";
import { heartbeat } from "./console-seed.js";
import { untilTrue } from "./until.js";

/**
 * Queues TRANSFER DEBUG for the agent through the console and has `deliver` (the agent's next heartbeat) take
 * it; answers the operation and the path of its upload target on the agent gateway.
 */
export async function deliveredTransferDebug(
  consoleApi: ConsoleApiUnderTest,
  token: string,
  agentId: string,
  deliver: () => Promise<unknown>,
): Promise<{ operationId: string; uploadPath: string }> {
  const queued = await consoleApi.request("POST", "/api/v1/operations", {
    token,
    body: { agentId, operation: "TRANSFER", operand: "DEBUG" },
  });
  expect(queued.status, queued.body).toBe(201);
  const [operation] = queued.json().items as { operationId: string; args: { target: string } }[];
  await deliver();
  const delivered = await consoleApi.request("GET", `/api/v1/operations/${operation?.operationId}`, {
    token,
  });
  expect(delivered.json().state).toBe("delivered");
  const target = new URL(operation?.args.target as string);
  return { operationId: operation?.operationId as string, uploadPath: target.pathname };
}

/**
 * Registers the agent with the fleet certificate, its manifest listing TRANSFER DEBUG, and has a TRANSFER DEBUG
 * delivered to it.
 */
export async function agentAwaitingBundle(
  agentApi: AgentApiClient,
  consoleApi: ConsoleApiUnderTest,
  credentials: { fleet: string; operator: string },
  agentId: string,
) {
  const deliver = () => heartbeat(agentApi, credentials.fleet, agentId, "gateways", `${agentId}-build`);
  // A heartbeat that runs out of time on a busy machine is answered with no operations and may register nothing;
  // the agent's next heartbeats register it and answer Beacon's DESCRIBE, as a real agent's would.
  await untilTrue(`${agentId}'s manifest known to Beacon`, async () => {
    expect(await deliver()).toBe(200);
    const agent = await consoleApi.request("GET", `/api/v1/agents/${agentId}`, {
      token: credentials.operator,
    });
    return agent.status === 200 && agent.json().supportedOperations !== undefined;
  });
  return { agentId, ...(await deliveredTransferDebug(consoleApi, credentials.operator, agentId, deliver)) };
}

/** Uploads the bundle as an agent does, with the certificate given (dev-fleet unless named). */
export function uploadBundle(
  agentApi: AgentApiClient,
  uploadPath: string,
  bytes: Uint8Array,
  certificate?: string,
) {
  const form = bundleForm(bytes);
  return agentApi.post(uploadPath, undefined, {
    certificate,
    rawBody: form.body,
    headers: { "content-type": form.contentType },
  });
}

/**
 * Downloads the bundle as a browser does: the console answers 302 with a short-lived link, which serves the
 * bytes as the agent sent them.
 */
export async function downloadBundle(
  consoleApi: ConsoleApiUnderTest,
  token: string,
  operationId: string,
): Promise<{ location: string; bytes: Uint8Array; headers: Headers }> {
  const redirect = await fetch(new URL(`/api/v1/debug-bundles/${operationId}/content`, consoleApi.url), {
    headers: { authorization: `Bearer ${token}` },
    redirect: "manual",
  });
  expect(redirect.status).toBe(302);
  const location = redirect.headers.get("location") as string;
  expect(await redirect.json()).toEqual({ location });
  const download = await fetch(location);
  expect(download.status).toBe(200);
  return { location, bytes: new Uint8Array(await download.arrayBuffer()), headers: download.headers };
}

/**
 * What the asset bucket holds of the operation's bundle, whatever the API says: the sizes of its objects, and
 * the multipart uploads neither completed nor aborted.
 */
export async function storedBundle(tenant: string, operationId: string) {
  const env = inject("beaconEnv");
  const s3 = makeS3Client(env);
  const bucket = env[EnvNames.assetBucket] as string;
  const prefix = `debug-bundles/${tenant}/${operationId}/`;
  try {
    const objects = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix }));
    return {
      objects: (objects.Contents ?? []).map((object) => object.Size),
      uploads: (uploads.Uploads ?? []).length,
    };
  } finally {
    s3.destroy();
  }
}

/** What storedBundle answers when a refused upload left nothing behind. */
export const nothingStored = { objects: [], uploads: 0 };

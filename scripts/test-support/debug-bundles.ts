import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import type { AgentApiUnderTest } from "./agent-api-harness.js";
import type { ConsoleApiUnderTest } from "./console-api-harness.js";

/** One part of a multipart/form-data body. */
export interface FormPart {
  name: string;
  filename?: string;
  contentType?: string;
  bytes: Uint8Array;
}

/** A multipart/form-data body as an HTTP client sends one (RFC 7578), with its Content-Type. */
export function multipartForm(parts: FormPart[]): { body: Buffer; contentType: string } {
  const boundary = `----beacon-${randomUUID()}`;
  const chunks = parts.flatMap((part) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"` +
        `${part.filename === undefined ? "" : `; filename="${part.filename}"`}\r\n` +
        `Content-Type: ${part.contentType ?? "application/octet-stream"}\r\n\r\n`,
    ),
    Buffer.from(part.bytes),
    Buffer.from("\r\n"),
  ]);
  return {
    body: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** The form both agents send a bundle in: the part `file`, `debug.tar.gz`, application/gzip. */
export const bundleForm = (bytes: Uint8Array) =>
  multipartForm([{ name: "file", filename: "debug.tar.gz", contentType: "application/gzip", bytes }]);

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

/** Uploads the bundle as an agent does, with the certificate given (dev-fleet unless named). */
export function uploadBundle(
  agentApi: AgentApiUnderTest,
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

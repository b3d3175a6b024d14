import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";

/** How the service answers a request, given its body whole. */
export type ServiceAnswer = (request: IncomingMessage, body: Buffer, response: ServerResponse) => void;

/**
 * An HTTP server on a free loopback port that answers as an AWS service does where the emulators never do (a
 * throttled call, a server error, a broken or frozen connection), listening for the test file's cases.
 */
export function localService(answer: ServiceAnswer) {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => answer(request, Buffer.concat(chunks), response));
  });
  beforeAll(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)));
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const url = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    url,
    /** The environment a client is made with to call it: its endpoint under `endpointEnvName`, a region and keys. */
    env: (endpointEnvName: string): Record<string, string> => ({
      [endpointEnvName]: url(),
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "local",
      AWS_SECRET_ACCESS_KEY: "local",
    }),
  };
}

/**
 * What the benchmarks' load processes share: mutual-TLS requests to the agent API as agents send them,
 * each timed, and latency percentiles.
 */
import { readFileSync } from "node:fs";
import { type Agent, request } from "node:https";
import path from "node:path";
import { performance } from "node:perf_hooks";

/** The TLS options of the dev certificate `certificate` in `certsDir`. */
export function clientTls(certsDir: string, certificate: string) {
  return {
    ca: readFileSync(path.join(certsDir, "ca.pem")),
    cert: readFileSync(path.join(certsDir, `${certificate}.pem`)),
    key: readFileSync(path.join(certsDir, `${certificate}.key`)),
  };
}

export interface AgentReply {
  status: number;
  ms: number;
  body: Buffer;
}

/**
 * POSTs `body` (its parts, written one after another) to `url` over `agent`, or over a connection of its
 * own, handshake included, when `agent` is false (as the C++ agent sends every request).
 */
export function postAsAgent(
  url: URL,
  body: readonly Buffer[],
  options: {
    agent: Agent | false;
    tls: ReturnType<typeof clientTls>;
    gzip?: boolean;
    /** Gives up on an answer after this long, as an agent's HTTP client does: the request fails with code `timeout`. */
    timeoutMs?: number;
  },
): Promise<AgentReply> {
  const started = performance.now();
  const length = body.reduce((sum, part) => sum + part.length, 0);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: "POST",
        agent: options.agent,
        ...(options.agent === false ? options.tls : {}),
        headers: {
          "content-type": "application/json",
          "content-length": length,
          ...(options.gzip ? { "content-encoding": "gzip" } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            ms: performance.now() - started,
            body: Buffer.concat(chunks),
          }),
        );
        response.on("error", reject);
      },
    );
    // Node's HTTPS agent leaves Nagle's algorithm on for the TLS sockets it opens (its noDelay reaches plain
    // TCP only): a request written in parts could wait for the server's delayed ACK. Agents' clients send at once.
    outgoing.on("socket", (socket) => socket.setNoDelay(true));
    outgoing.on("error", reject);
    if (options.timeoutMs !== undefined)
      outgoing.setTimeout(options.timeoutMs, () =>
        outgoing.destroy(
          Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: "timeout" }),
        ),
      );
    for (const part of body) outgoing.write(part);
    outgoing.end();
  });
}

/** The identifiers of the DESCRIBE MANIFEST operations an answer to a heartbeat asks for, which agents answer with an ack. */
export function describeManifestsAsked(reply: AgentReply): string[] {
  if (reply.status !== 200) return [];
  const { requestedOperations = [] } = JSON.parse(reply.body.toString("utf8")) as {
    requestedOperations?: { identifier: string; operation: string; operand?: string }[];
  };
  return requestedOperations
    .filter(
      ({ operation, operand }) =>
        operation.toUpperCase() === "DESCRIBE" && operand?.toUpperCase() === "MANIFEST",
    )
    .map(({ identifier }) => identifier);
}

export const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** p50, p95, p99 and max of latencies in ms. */
export function latencySummary(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    max: sorted.at(-1) ?? 0,
  };
}

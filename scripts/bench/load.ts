/**
 * The load side of `npm run bench`, in a process of its own so that it does not share an event loop
 * with the gateway and handler it measures. Registers many agents with a C++ full heartbeat each, then
 * sends them steady C++ light heartbeats over kept-alive mutual-TLS connections and prints one JSON line
 * of results.
 */
import { readFileSync } from "node:fs";
import { Agent } from "node:https";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { clientTls, latencySummary, postAsAgent } from "./agent-client.js";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    certs: { type: "string" },
    certificate: { type: "string", default: "dev-fleet" },
    agents: { type: "string", default: "1000" },
    rounds: { type: "string", default: "5" },
    concurrency: { type: "string", default: "50" },
    registration: { type: "string" },
    heartbeat: { type: "string" },
  },
});
const url = new URL("/c2/api/heartbeat", values.url);
const certs = values.certs as string;
const agentCount = Number(values.agents);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
/** The template's heartbeat as agent `index` sends it. */
function bodyOf(templateFile: string): (index: number) => Buffer {
  const template = readFileSync(templateFile, "utf8");
  const templateId = (JSON.parse(template) as { agentInfo: { identifier: string } }).agentInfo.identifier;
  return (index) => Buffer.from(template.replace(templateId, `bench-agent-${index}`));
}

const tls = clientTls(certs, values.certificate as string);
const tlsAgent = new Agent({ keepAlive: true, maxSockets: concurrency, ...tls });
const heartbeat = (body: Buffer) => postAsAgent(url, [body], { agent: tlsAgent, tls });

/** One heartbeat of every agent; `body` gives agent `index`'s. */
async function round(
  body: (index: number) => Buffer,
): Promise<{ latencies: number[]; errors: number; seconds: number }> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < agentCount) {
        const result = await heartbeat(body(next++));
        latencies.push(result.ms);
        if (result.status !== 200) errors++;
      }
    }),
  );
  return { latencies, errors, seconds: (performance.now() - started) / 1000 };
}

// Round one registers every agent, its ~900 KB bodies made as they are sent; the process then waits for the
// runner to reset its counters.
const registration = await round(bodyOf(values.registration as string));
process.stdout.write(`${JSON.stringify({ phase: "registered", errors: registration.errors })}\n`);
await new Promise((resolve) => process.stdin.once("data", resolve));

const lightBodyOf = bodyOf(values.heartbeat as string);
const bodies = Array.from({ length: agentCount }, (_, index) => lightBodyOf(index));
const steady = { latencies: [] as number[], errors: 0, seconds: 0 };
for (let index = 0; index < rounds; index++) {
  const result = await round((agent) => bodies[agent] as Buffer);
  steady.latencies.push(...result.latencies);
  steady.errors += result.errors;
  steady.seconds += result.seconds;
}
const { count, p50, p95, p99, max } = latencySummary(steady.latencies);
process.stdout.write(
  `${JSON.stringify({
    phase: "result",
    heartbeats: count,
    errors: steady.errors,
    perSecond: Math.round(count / steady.seconds),
    p50,
    p95,
    p99,
    max,
  })}\n`,
);
tlsAgent.destroy();

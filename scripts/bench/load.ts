/**
 * The load side of `npm run bench`, in a process of its own so that it does not share an event loop
 * with the gateway and handler it measures. Registers many agents with a C++ full heartbeat each, then
 * sends them steady C++ light heartbeats over kept-alive mutual-TLS connections and prints one JSON line
 * of results: `--rounds` rounds of every agent, `--concurrency` in flight; or, with `--rates`, a step of
 * `--step-seconds` at each rate, open loop (each heartbeat starts on schedule, answered or not), one line
 * a step, each step after the runner says `go`.
 */
import { readFileSync } from "node:fs";
import { Agent } from "node:https";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { AgentRoutes } from "../../functions/core/c2/routes.js";
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
    /** Heartbeats per second, comma-separated: an open-loop step at each instead of the rounds. */
    rates: { type: "string" },
    "step-seconds": { type: "string", default: "15" },
    /** Connections open at most; `--concurrency` unless given. */
    connections: { type: "string" },
  },
});
const url = new URL(AgentRoutes.heartbeat.path, values.url);
const certs = values.certs as string;
const agentCount = Number(values.agents);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
const rates = values.rates?.split(",").map(Number);
const stepSeconds = Number(values["step-seconds"]);
/**
 * The runner's word, `go`, before the steady heartbeats and, with `--rates`, before each step; anything else,
 * or the runner gone, ends the load.
 */
const commands = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const toldToGo = async () => (await commands.next()).value === "go";
/** The template's heartbeat as agent `index` sends it. */
function bodyOf(templateFile: string): (index: number) => Buffer {
  const template = readFileSync(templateFile, "utf8");
  const templateId = (JSON.parse(template) as { agentInfo: { identifier: string } }).agentInfo.identifier;
  return (index) => Buffer.from(template.replace(templateId, `bench-agent-${index}`));
}

const tls = clientTls(certs, values.certificate as string);
const tlsAgent = new Agent({
  keepAlive: true,
  // Heartbeats beyond them wait for one: with --rates, that wait is counted in their latency.
  maxSockets: Number(values.connections ?? concurrency),
  ...tls,
});
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

/**
 * Heartbeats at `rate` a second for `seconds`, open loop: the i-th starts at i / rate seconds whether or not
 * the earlier ones were answered, and its latency counts from then, so a server falling behind is seen in full.
 * `lateness` is how late this process itself started them (its timers, its GC, the machine's run queue).
 */
async function openLoop(rate: number, seconds: number, body: (index: number) => Buffer) {
  const total = Math.round(rate * seconds);
  const latencies: number[] = [];
  const lateness: number[] = [];
  const pending: Promise<void>[] = [];
  let errors = 0;
  const started = performance.now();
  for (let index = 0; index < total; ) {
    const now = performance.now();
    for (; index < total && started + (index * 1000) / rate <= now; index++) {
      const scheduled = started + (index * 1000) / rate;
      lateness.push(now - scheduled);
      pending.push(
        heartbeat(body(index)).then(
          (result) => {
            latencies.push(performance.now() - scheduled);
            if (result.status !== 200) errors++;
          },
          () => {
            latencies.push(performance.now() - scheduled);
            errors++;
          },
        ),
      );
    }
    await sleep(1);
  }
  await Promise.all(pending);
  return { latencies: latencies.sort((a, b) => a - b), errors, lateness: latencySummary(lateness) };
}

// Round one registers every agent, its ~900 KB bodies made as they are sent; the process then waits for the
// runner to reset its counters.
const registration = await round(bodyOf(values.registration as string));
process.stdout.write(`${JSON.stringify({ phase: "registered", errors: registration.errors })}\n`);
if (!(await toldToGo())) process.exit(0);

const lightBodyOf = bodyOf(values.heartbeat as string);
const bodies = Array.from({ length: agentCount }, (_, index) => lightBodyOf(index));
if (rates) {
  let steps = 0;
  for (const [step, rate] of rates.entries()) {
    // The runner says `stop` once a step shows the server saturated: higher rates would only queue.
    if (step > 0 && !(await toldToGo())) break;
    const result = await openLoop(rate, stepSeconds, (index) => bodies[index % agentCount] as Buffer);
    process.stdout.write(
      `${JSON.stringify({
        phase: "rate",
        rate,
        heartbeats: result.latencies.length,
        errors: result.errors,
        lagMs: result.lateness.max,
        lateP50: result.lateness.p50,
        lateP99: result.lateness.p99,
        ...latencySummary(result.latencies),
      })}\n`,
    );
    steps++;
  }
  process.stdout.write(`${JSON.stringify({ phase: "result", steps })}\n`);
} else {
  const steady = { latencies: [] as number[], errors: 0, seconds: 0 };
  for (let index = 0; index < rounds; index++) {
    const result = await round((agent) => bodies[agent] as Buffer);
    steady.latencies.push(...result.latencies);
    steady.errors += result.errors;
    steady.seconds += result.seconds;
  }
  const { count, ...latency } = latencySummary(steady.latencies);
  process.stdout.write(
    `${JSON.stringify({
      phase: "result",
      heartbeats: count,
      errors: steady.errors,
      perSecond: Math.round(count / steady.seconds),
      ...latency,
    })}\n`,
  );
}
tlsAgent.destroy();
process.stdin.destroy();

/**
 * `npm run bench:herd`, small: a few dozen agents of each dialect, on the benchmark's own backends. It checks
 * what the herd must come to whatever the machine (every request answered 200, one manifest content item for
 * the tenant, no agent asked for a manifest it sent, Beacon's counters at 0) and the report's shape, never
 * how fast.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import { repositoryRoot } from "../test-support/local-stack.js";

const AGENTS = 30;
const HEARTBEATS = 2;
/** Registered after the herd over connections opened before: Beacon's CPU per new agent without its handshake. */
const NEW_AGENTS = 10;

/** The environment without the shared backends' addresses, so the benchmark starts its own. */
const ownBackendsEnv = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !Object.values<string>(AwsEndpointEnvNames).includes(name) && name !== EnvNames.redisUrl,
    ),
  );

async function herd(dialect: "java" | "cpp", options: string[] = []) {
  const { stdout } = await promisify(execFile)(
    "npm",
    [
      "run",
      "-s",
      "bench:herd",
      "--",
      `--agents=${AGENTS}`,
      `--dialect=${dialect}`,
      "--arrival-seconds=2",
      `--heartbeats=${HEARTBEATS}`,
      "--period-seconds=1",
      `--new-agents=${NEW_AGENTS}`,
      "--json",
      ...options,
    ],
    { cwd: repositoryRoot, env: ownBackendsEnv(), maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1) as string) as Record<string, unknown>;
}

const latency = {
  count: expect.any(Number),
  ...Object.fromEntries(["p50", "p95", "p99", "max"].map((p) => [p, expect.any(Number)])),
};

/** Every request answered, one manifest content item for the herd's build, and Beacon's counters at 0. */
const answeredToOneItem = {
  errors: { firstHeartbeat: {}, heartbeat: {}, describeAck: {}, newAgent: {} },
  manifestItems: 1,
  beaconCounters: {
    HeartbeatsFailed: 0,
    CacheFallbacks: 0,
    StreamFailures: 0,
    EventsLost: 0,
    ManifestsStored: 1,
    DescribeSent: 0,
  },
};

describe("npm run bench:herd", () => {
  for (const dialect of ["java", "cpp"] as const) {
    it(`runs a herd of ${dialect} agents to one manifest content item, every request answered`, async () => {
      const figures = await herd(dialect);
      expect(figures).toMatchObject({
        dialect,
        agents: AGENTS,
        // Both dialects' agents send the manifest of their new hash, so none is asked for it.
        describesAsked: 0,
        ...answeredToOneItem,
        latencies: { firstHeartbeat: latency, heartbeat: latency },
        generator: {
          cpuSeconds: expect.any(Number),
          eventLoopDelayP99Ms: expect.any(Number),
          startLatenessMaxMs: expect.any(Number),
        },
        machine: { cores: expect.any(Number), loadAverage1m: { mean: expect.any(Number) } },
      });
      const latencies = figures.latencies as Record<string, { count: number }>;
      expect(latencies.firstHeartbeat?.count).toBe(AGENTS);
      expect(latencies.heartbeat?.count).toBe(AGENTS * HEARTBEATS);
      // The new agents after the herd: each registered (the build's one item above), its CPU and requests counted.
      expect(latencies.newAgent?.count).toBe(NEW_AGENTS);
      expect(figures.newAgents).toMatchObject({
        agents: NEW_AGENTS,
        cpuMsPerAgent: expect.any(Number),
        dynamoDbRequestsPerAgent: expect.any(Number),
      });
      expect(
        (figures.newAgents as { dynamoDbRequestsPerAgent: number }).dynamoDbRequestsPerAgent,
      ).toBeGreaterThanOrEqual(1);
      // Registering the herd's agents is DynamoDB's work; steady heartbeats add none.
      expect((figures.dynamoDbRequests as { total: number }).total).toBeGreaterThanOrEqual(AGENTS);
      // Every heartbeat's event went on the stream (no stream failure, no event lost, above); the heartbeats
      // answered at once share a put, and none makes more than one.
      expect(figures.kinesisRequests).toBeGreaterThan(0);
      expect(figures.kinesisRequests).toBeLessThanOrEqual(AGENTS * (1 + HEARTBEATS));
    }, 300_000);
  }

  it("runs Beacon in two processes sharing the gateway's port, as tasks behind a load balancer", async () => {
    // C++ agents open a connection per request, and the workers take new connections in turn: both register some.
    const figures = await herd("cpp", ["--workers=2"]);
    // The two processes' agents registered one new manifest between them: the conditional write's single item.
    expect(figures).toMatchObject({ ...answeredToOneItem, beaconProcesses: 2 });
    const registrations = figures.registrationsByProcess as number[];
    expect(registrations).toHaveLength(2);
    expect(registrations.every((count) => count > 0)).toBe(true);
    expect(registrations.reduce((sum, count) => sum + count, 0)).toBe(AGENTS);
    expect(figures.gatewayAndHandlerCpuSeconds).toBeGreaterThan(0);
  }, 300_000);
});

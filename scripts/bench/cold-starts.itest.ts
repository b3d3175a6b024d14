/**
 * `npm run bench:cold-start`'s code, small: two cold starts of each function whose first request touches
 * nothing but its own tenant (the sweeper's and the webhook dispatcher's runs would act on other tests'
 * data in the shared backends). It checks what the benchmark built, started and answered, never how fast.
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, inject, it } from "vitest";
import { repositoryRoot } from "../test-support/local-stack.js";
import { reportLines, runColdStartBench } from "./cold-starts.js";
import { functionNames } from "./function-bundles.js";

const RUNS = 2;
const stateDir = path.join(repositoryRoot, ".beacon", `cold-starts-test-${process.pid}`);

afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

it("bundles every function, starts each fresh and has it answer its first request right", async () => {
  const report = await runColdStartBench({
    env: inject("beaconEnv"),
    stateDir,
    runs: RUNS,
    warmUps: 1,
    functions: ["agent-api", "console-api", "stream-consumer"],
    tenant: `cold-${randomUUID().slice(0, 8)}`,
    profileDir: path.join(stateDir, "profiles"),
    log: () => {},
  });

  // Every function is bundled and sized, started or not.
  expect(report.bundles.map(({ name }) => name)).toEqual(functionNames());
  expect(functionNames()).toEqual(
    expect.arrayContaining(["agent-api", "console-api", "stream-consumer", "sweeper", "webhook-dispatcher"]),
  );
  for (const bundle of report.bundles) {
    expect(bundle.bytes).toBeGreaterThan(0);
    expect(bundle.gzipBytes).toBeGreaterThan(0);
    expect(bundle.gzipBytes).toBeLessThan(bundle.bytes);
  }
  // The console lists the agents the agent API's cold starts registered; the consumer took their events.
  expect(report.cases.map(({ functionName, request }) => `${functionName}: ${request}`)).toEqual([
    "agent-api: steady heartbeat",
    "agent-api: first heartbeat",
    "console-api: agent list page",
    "stream-consumer: batch of 5 records",
  ]);
  for (const result of report.cases) {
    expect(result.wrongAnswers).toEqual([]);
    expect(result.samples).toHaveLength(RUNS);
    for (const sample of result.samples) {
      expect(sample.node).toMatch(/^v22\./);
      expect(sample.error).toBeUndefined();
      expect([sample.initMs, sample.initCpuMs, sample.firstRequestMs, sample.firstRequestCpuMs]).toEqual(
        Array(4).fill(expect.any(Number)),
      );
    }
    // Each process wrote its CPU profile: the first one's is summarised, its bundle named as an area.
    expect(result.profile?.byArea).toEqual(
      expect.arrayContaining([expect.stringContaining(`the ${result.functionName} bundle`)]),
    );
    expect(result.totalMs.max).toBe(
      Math.max(...result.samples.map((sample) => sample.initMs + sample.firstRequestMs)),
    );
    // Linux says how long each process waited for a core: the wall-clock time less that wait is what is left.
    expect(result.queued?.totalMs.max).toBeGreaterThanOrEqual(0);
    expect(result.unqueued?.totalMs.p50).toBeGreaterThan(0);
    expect(result.unqueued?.totalMs.max).toBeLessThanOrEqual(result.totalMs.max);
  }
  const lines = reportLines(report);
  expect(lines[0]).toMatch(/^machine: \d+ × .+, Node v22\./);
  expect(lines[1]).toMatch(/^load average \(1, 5, 15 min\): [\d.]+ [\d.]+ [\d.]+ before/);
  expect(lines).toContain(
    `cold starts, ${RUNS} fresh processes each, after 1 unmeasured; ms as p50 p95 p99 max:`,
  );
  expect(lines).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^ {2}waiting for a core +init/),
      expect.stringMatching(/^ {2}wall-clock less that wait +init/),
    ]),
  );
  expect(lines).toContain(
    "where agent-api (steady heartbeat) spent its CPU (the first process's profile), by area, then by function:",
  );
  console.log(lines.join("\n"));
}, 300_000);

it("has the agent API register the agents the console lists and the stream consumer takes events of, without its cases", async () => {
  const report = await runColdStartBench({
    env: inject("beaconEnv"),
    stateDir: path.join(stateDir, "without-agent-api"),
    runs: RUNS,
    warmUps: 0,
    functions: ["console-api", "stream-consumer"],
    tenant: `cold-${randomUUID().slice(0, 8)}`,
    log: () => {},
  });

  expect(
    report.cases.map(({ functionName, request, wrongAnswers, samples }) => ({
      functionName,
      request,
      wrongAnswers,
      errors: samples.flatMap(({ error }) => error ?? []),
      runs: samples.length,
    })),
  ).toEqual([
    {
      functionName: "console-api",
      request: "agent list page",
      wrongAnswers: [],
      errors: [],
      runs: RUNS,
    },
    {
      functionName: "stream-consumer",
      request: "batch of 5 records",
      wrongAnswers: [],
      errors: [],
      runs: RUNS,
    },
  ]);
}, 300_000);

import { expect, it } from "vitest";
import { budgetBreaches, type ColdStartReport, percentiles } from "./cold-starts.js";

it("takes nearest-rank percentiles", () => {
  const values = Array.from({ length: 20 }, (_, index) => 20 - index);
  expect(percentiles(values)).toEqual({ p50: 10, p95: 19, p99: 20, max: 20 });
  expect(percentiles([7])).toEqual({ p50: 7, p95: 7, p99: 7, max: 7 });
});

it("names each function over 300 ms at p99, an agent API bundle over 1.05 MB and every wrong answer", () => {
  const figures = (p99: number) => ({ p50: 1, p95: 1, p99, max: p99 });
  const caseOf = (functionName: string, totalP99: number, wrongAnswers: string[] = []) => ({
    functionName,
    request: "first request",
    samples: [],
    initMs: figures(1),
    initCpuMs: figures(1),
    firstRequestMs: figures(1),
    firstRequestCpuMs: figures(1),
    totalMs: figures(totalP99),
    totalCpuMs: figures(1),
    wrongAnswers,
  });
  const report = (agentApiBytes: number, cases: ColdStartReport["cases"]): ColdStartReport => ({
    machine: { cpu: "cpu", cores: 2, node: "v22.0.0" },
    load: { before: [1, 1, 1], after: [1, 1, 1] },
    runs: 1,
    warmUps: 0,
    bundles: [{ name: "agent-api", file: "index.mjs", bytes: agentApiBytes, gzipBytes: 1, chunkBytes: 0 }],
    cases,
  });

  expect(budgetBreaches(report(1_050_000, [caseOf("agent-api", 300), caseOf("sweeper", 299)]))).toEqual([]);
  expect(
    budgetBreaches(report(1_050_001, [caseOf("agent-api", 301), caseOf("sweeper", 10, ["status 500"])])),
  ).toEqual([
    "agent-api (first request): init + first request p99 301 ms, over 300 ms",
    "agent-api bundle 1,050,001 bytes, over 1,050,000",
    "sweeper (first request) answered wrong: status 500",
  ]);
});

/**
 * `npm run bench:attention`'s code, small: a few hundred agents written as Beacon writes them, some put in the
 * attention indexes, their counts and each filter's first page read through the console API's own composition.
 * It checks what the bench counted and read, never how fast.
 */
import { expect, it } from "vitest";
import { fleetAgent } from "./agent-fleet.js";
import {
  attentionReportLines,
  FILTERS,
  PAGE_ROWS,
  REASONS_BY_PERCENT,
  runAttentionBench,
} from "./attention-reads.js";
import { smallBench } from "./small-bench.js";

const AGENTS = 300;
const ROUNDS = 2;
const bench = smallBench("attention-reads", AGENTS, ROUNDS);

it("writes a fleet with agents in the attention indexes, and counts and pages them as the console API reads them", async () => {
  const report = await runAttentionBench(bench);

  const heartbeating = Array.from({ length: AGENTS }, (_, index) => index).filter(
    (index) => fleetAgent(index).presence === "online",
  );
  const indexed = (reason: string) =>
    heartbeating.filter((index) => REASONS_BY_PERCENT[index % 100]?.includes(reason as never)).length;
  const expected = {
    backPressure: indexed("backPressure"),
    errorBulletins: indexed("errorBulletins"),
    offTarget: indexed("offTarget"),
  };
  expect(report.indexed).toEqual(expected);
  expect(report.counted).toEqual({ offline: expect.any(Number), ...expected });
  expect(report.counted.offline).toBeGreaterThan(0);
  const rows = Object.fromEntries(report.firstPages.map(({ attention, rows }) => [attention, rows]));
  expect(rows).toEqual({
    backPressure: Math.min(PAGE_ROWS, expected.backPressure),
    errorBulletins: Math.min(PAGE_ROWS, expected.errorBulletins),
    offTarget: Math.min(PAGE_ROWS, expected.offTarget),
    offline: Math.min(PAGE_ROWS, report.counted.offline as number),
    any: PAGE_ROWS,
  });
  expect(report.firstPages.map(({ attention }) => attention)).toEqual([...FILTERS]);
  for (const read of [report.counts, ...report.firstPages]) {
    expect(read.samplesMs).toHaveLength(ROUNDS);
    expect(read.requestsPerRead).toBeGreaterThan(0);
  }
  expect(attentionReportLines(report, ROUNDS).join("\n")).toContain("?attention=any");
});

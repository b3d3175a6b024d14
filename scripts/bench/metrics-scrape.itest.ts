/**
 * `npm run bench:metrics`'s code, small: a few hundred agents written as Beacon writes them, scraped through the
 * console API's own composition. It checks what the bench counted, never how fast.
 */
import { expect, it } from "vitest";
import { FLEET_CLASSES } from "./agent-fleet.js";
import { metricsReportLines, runMetricsBench } from "./metrics-scrape.js";
import { smallBench } from "./small-bench.js";

const AGENTS = 300;
const ROUNDS = 3;
const bench = smallBench("metrics-scrape", AGENTS, ROUNDS);

it("scrapes a written fleet's metrics, counting its agents by class, at a cost independent of them", async () => {
  const report = await runMetricsBench(bench);

  expect(Object.keys(report.online).sort()).toEqual([...FLEET_CLASSES].sort());
  expect(Object.values(report.online).reduce((sum, count) => sum + count, 0)).toBe(
    report.fleet.byPresence.online,
  );
  // 17 series a class and the tenant's own three.
  expect(report.series).toBe(FLEET_CLASSES.length * 17 + 3);
  expect(report.samplesMs).toHaveLength(ROUNDS);
  // The class list and the classes' minute of fleet history, whatever the number of agents.
  expect(report.dynamoDbRequestsPerScrape).toBe(2);
  expect(report.cacheCommandsPerScrape).toBeGreaterThan(0);
  expect(report.cpuMsPerScrape).toBeGreaterThan(0);
  expect(metricsReportLines(report, ROUNDS).join("\n")).toContain("commands a scrape");
});

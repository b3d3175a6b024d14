import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FunctionLog } from "./function-logs.js";
import { metricTotals } from "./function-metrics.js";

describe("metricTotals", () => {
  let dir: string;
  let log: FunctionLog;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "beacon-function-metrics-test-"));
    log = FunctionLog.open({
      file: path.join(dir, "functions.jsonl"),
      terminalLevel: "error",
      terminal: () => {},
    });
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("adds up the named metrics of the metric lines stamped within the window", async () => {
    // The lines real Powertools instances write, as the handlers write them.
    const metrics = new Metrics({ namespace: "Beacon", serviceName: "beacon-local" });
    const logger = new Logger({ serviceName: "beacon-local" });
    const from = Date.now();
    log.run("agent-api", () => {
      metrics.addMetric("CacheFallbacks", MetricUnit.Count, 1);
      metrics.addMetric("Heartbeats", MetricUnit.Count, 1);
      metrics.publishStoredMetrics();
      logger.warn("cache unavailable; answered from DynamoDB", { CacheFallbacks: 100 });
      metrics.addMetric("EventsLost", MetricUnit.Count, 2);
      metrics.addMetric("EventsLost", MetricUnit.Count, 3);
      metrics.publishStoredMetrics();
    });
    const to = Date.now();
    log.close();
    // A line from before the window, as an earlier run leaves it.
    const earlier = { _aws: { Timestamp: from - 60_000, CloudWatchMetrics: [] }, CacheFallbacks: 7 };
    appendFileSync(log.file, `${JSON.stringify(earlier)}\n`);

    const totals = await metricTotals(log.file, ["CacheFallbacks", "EventsLost", "StreamFailures"], {
      from,
      to,
    });
    expect(totals).toEqual({ CacheFallbacks: 1, EventsLost: 5, StreamFailures: 0 });
  });
});

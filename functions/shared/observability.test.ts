import { afterEach, describe, expect, it, vi } from "vitest";
import { countUnpublished, MetricNames, metrics } from "./observability.js";

/** The metric lines (EMF) `work` wrote to stdout, as objects. */
function metricLinesOf(work: () => void): Record<string, unknown>[] {
  const lines: string[] = [];
  const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    work();
  } finally {
    write.mockRestore();
  }
  return lines
    .flatMap((chunk) => chunk.split("\n"))
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

afterEach(() => metrics.clearMetrics());

describe("countUnpublished", () => {
  it("counts nothing when everything the stream did not take is staged", () => {
    expect(metricLinesOf(() => countUnpublished({ held: 0, staged: 3, lost: 0 }))).toEqual([]);
    expect(metrics.hasStoredMetrics()).toBe(false);
  });

  it("publishes held and lost events apart, each failed publish at once", () => {
    const lines = metricLinesOf(() => {
      countUnpublished({ held: 2, staged: 1, lost: 0 });
      countUnpublished({ held: 0, staged: 0, lost: 3 });
      countUnpublished({ held: 4, staged: 0, lost: 1 });
    });
    expect(lines.map((line) => [line[MetricNames.eventsHeld], line[MetricNames.eventsLost]])).toEqual([
      [2, undefined],
      [undefined, 3],
      [4, 1],
    ]);
    // Nothing left for the request's own line: a put that failed after its request was answered is counted too.
    expect(metrics.hasStoredMetrics()).toBe(false);
  });
});

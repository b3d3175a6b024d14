import { afterEach, describe, expect, it, vi } from "vitest";
import type { BeaconEvent } from "../core/events/model.js";
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

const heartbeat = (eventId: string): BeaconEvent => ({
  type: "heartbeat",
  version: 1,
  eventId,
  tenant: "acme",
  agentId: "a-1",
  at: Date.UTC(2026, 10, 24),
  firstSight: false,
  operationsSent: [],
});

describe("countUnpublished", () => {
  it("counts nothing when everything the stream did not take is staged", () => {
    expect(metricLinesOf(() => countUnpublished({ held: 0, heldInOutbox: 0, staged: 3, lost: [] }))).toEqual(
      [],
    );
    expect(metrics.hasStoredMetrics()).toBe(false);
  });

  it("publishes held, held in the outbox and lost events apart, each failed publish at once", () => {
    const lost = (count: number) => Array.from({ length: count }, (_, index) => heartbeat(`h-${index}`));
    const lines = metricLinesOf(() => {
      countUnpublished({ held: 2, heldInOutbox: 0, staged: 1, lost: [] });
      countUnpublished({ held: 0, heldInOutbox: 0, staged: 0, lost: lost(3) });
      countUnpublished({ held: 4, heldInOutbox: 0, staged: 0, lost: lost(1) });
      countUnpublished({ held: 1, heldInOutbox: 5, staged: 0, lost: [] });
    });
    expect(
      lines.map((line) => [
        line[MetricNames.eventsHeld],
        line[MetricNames.eventsHeldInOutbox],
        line[MetricNames.eventsLost],
      ]),
    ).toEqual([
      [2, undefined, undefined],
      [undefined, undefined, 3],
      [4, undefined, 1],
      [1, 5, undefined],
    ]);
    // Nothing left for the request's own line: a put that failed after its request was answered is counted too.
    expect(metrics.hasStoredMetrics()).toBe(false);
  });
});

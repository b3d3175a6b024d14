import { Logger } from "@aws-lambda-powertools/logger";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { BeaconEvent } from "../core/events/model.js";
import { EventsKeptForRelay } from "../core/events/publishing.js";
import { countUnpublished, MetricNames, metrics, reportStreamFailure } from "./observability.js";

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

describe("reportStreamFailure", () => {
  const logger = new Logger({ serviceName: "observability-test" });
  afterEach(() => vi.restoreAllMocks());
  const streamFailuresCounted = () =>
    metricLinesOf(() => metrics.publishStoredMetrics()).map((line) => line[MetricNames.streamFailures]);

  it("warns, without the events, when every event the stream did not take is kept for a relay", () => {
    const warn = vi.spyOn(logger, "warn").mockImplementation(() => {});
    const error = vi.spyOn(logger, "error").mockImplementation(() => {});
    const kept = new EventsKeptForRelay(new Error("stream unavailable"), [heartbeat("h-1")]);

    reportStreamFailure(logger, kept, "events", [heartbeat("h-1")]);

    expect(error).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledWith("events not put on the stream yet: kept for the relay", {
      error: "Error: stream unavailable",
    });
    expect(streamFailuresCounted()).toEqual([1]);
  });

  it("logs an error, with the events whole, when some are kept nowhere", () => {
    const warn = vi.spyOn(logger, "warn").mockImplementation(() => {});
    const error = vi.spyOn(logger, "error").mockImplementation(() => {});

    reportStreamFailure(logger, new Error("stream unavailable"), "events", [heartbeat("h-1")]);

    expect(warn).not.toHaveBeenCalled();
    expect(error).toHaveBeenCalledWith("events not put on the stream", {
      error: "Error: stream unavailable",
      events: [heartbeat("h-1")],
    });
    expect(streamFailuresCounted()).toEqual([1]);
  });

  it("counts and logs nothing when the stream took the events", () => {
    const error = vi.spyOn(logger, "error");
    reportStreamFailure(logger, undefined, "events");
    expect(error).not.toHaveBeenCalled();
    expect(metrics.hasStoredMetrics()).toBe(false);
  });
});

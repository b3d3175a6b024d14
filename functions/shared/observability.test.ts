import { afterEach, describe, expect, it } from "vitest";
import { countUnpublished, MetricNames, metrics } from "./observability.js";

/** A counter as the next metric line would carry it; undefined when nothing was counted. */
function counted(name: string): unknown {
  if (!metrics.hasStoredMetrics()) return undefined;
  return (metrics.serializeMetrics() as unknown as Record<string, unknown>)[name];
}

afterEach(() => metrics.clearMetrics());

describe("countUnpublished", () => {
  it("counts nothing when everything the stream did not take is staged", () => {
    countUnpublished({ held: 0, staged: 3, lost: 0 });
    expect(counted(MetricNames.eventsHeld)).toBeUndefined();
    expect(counted(MetricNames.eventsLost)).toBeUndefined();
  });

  it("counts held and lost events apart, each publish as it comes", () => {
    countUnpublished({ held: 2, staged: 1, lost: 0 });
    countUnpublished({ held: 0, staged: 0, lost: 3 });
    countUnpublished({ held: 4, staged: 0, lost: 1 });
    // Two additions of one metric in one invocation: EMF carries both values.
    expect(counted(MetricNames.eventsHeld)).toEqual([2, 4]);
    expect(counted(MetricNames.eventsLost)).toEqual([3, 1]);
  });
});

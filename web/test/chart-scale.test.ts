import { describe, expect, it } from "vitest";
import {
  countTicks,
  HISTORY_RANGES,
  linearScale,
  linePath,
  MAX_POINTS,
  rangeEndingAt,
  stepSecondsFor,
  timeTicks,
} from "../src/chart-scale.js";

const MINUTE = 60_000;

describe("the fleet history's ranges", () => {
  it("asks for whole-minute steps that keep every range within the points a chart can show", () => {
    expect(HISTORY_RANGES.map(({ minutes }) => stepSecondsFor(minutes))).toEqual([60, 180, 720]);
    for (const { minutes } of HISTORY_RANGES) {
      const step = stepSecondsFor(minutes);
      expect(step % 60).toBe(0);
      expect((minutes * 60) / step).toBeLessThanOrEqual(MAX_POINTS);
    }
    expect(stepSecondsFor(121)).toBe(120);
  });

  it("ends after the current minute and spans exactly the range, so a day is never over the API's day", () => {
    const now = Date.parse("2026-11-24T16:35:20.000Z");
    expect(rangeEndingAt(now, 60)).toEqual({
      from: "2026-11-24T15:36:00.000Z",
      to: "2026-11-24T16:36:00.000Z",
    });
    const day = rangeEndingAt(Date.parse("2026-11-24T16:35:00.000Z"), 1440);
    expect(day).toEqual({ from: "2026-11-23T16:36:00.000Z", to: "2026-11-24T16:36:00.000Z" });
  });
});

describe("the chart's scales", () => {
  it("maps a domain linearly onto a range, upside down for a y axis", () => {
    const y = linearScale([0, 10], [150, 30]);
    expect([y(0), y(5), y(10)]).toEqual([150, 90, 30]);
    expect(linearScale([5, 5], [0, 100])(5)).toBe(0);
  });

  it("ticks counts in whole steps of 1, 2 or 5 times a power of ten up to the peak or just over", () => {
    expect(countTicks(0)).toEqual([0, 1]);
    expect(countTicks(1)).toEqual([0, 1]);
    expect(countTicks(3)).toEqual([0, 1, 2, 3]);
    expect(countTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(countTicks(137)).toEqual([0, 50, 100, 150]);
    expect(countTicks(100_000)).toEqual([0, 50_000, 100_000]);
  });

  it("ticks times on round local times, the finest interval that gives at most the count asked", () => {
    const from = Date.parse("2026-11-24T15:36:00.000Z");
    const hour = timeTicks(from, from + 60 * MINUTE, 4);
    expect(hour.map((tick) => new Date(tick).toISOString().slice(11, 16))).toEqual([
      "15:45",
      "16:00",
      "16:15",
      "16:30",
    ]);
    const day = timeTicks(from, from + 1440 * MINUTE, 4);
    expect(day.map((tick) => new Date(tick).toISOString().slice(11, 16))).toEqual([
      "18:00",
      "00:00",
      "06:00",
      "12:00",
    ]);
    // Half an hour east of UTC: ticks fall on the local hour, at :30 in UTC.
    const india = timeTicks(from, from + 360 * MINUTE, 4, 330);
    expect(india.map((tick) => new Date(tick).toISOString().slice(11, 16))).toEqual([
      "16:30",
      "18:30",
      "20:30",
    ]);
  });

  it("draws a line through the points, rounded to a tenth", () => {
    expect(
      linePath([
        [0, 10],
        [12.345, 5],
        [20, 0],
      ]),
    ).toBe("M0,10 L12.3,5 L20,0");
    expect(linePath([])).toBe("");
  });
});

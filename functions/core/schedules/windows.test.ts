import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BeaconError } from "../errors.js";
import {
  canonicalTimeZone,
  type MaintenanceWindow,
  maintenanceWindowsOf,
  WEEKDAYS,
  windowState,
  windowsTogetherState,
} from "./windows.js";

const at = (iso: string) => Date.parse(iso);
const weekend: MaintenanceWindow = { days: ["sat", "sun"], start: "02:00", durationMinutes: 240 };

describe("maintenance windows in UTC", () => {
  it("are open from their start for their duration on their days, and say when they close", () => {
    expect(windowState(at("2026-11-28T03:00:00Z"), [weekend], "UTC")).toEqual({
      open: true,
      closesAt: at("2026-11-28T06:00:00Z"),
    });
    expect(windowState(at("2026-11-28T02:00:00Z"), [weekend], "UTC").open).toBe(true);
    expect(windowState(at("2026-11-28T06:00:00Z"), [weekend], "UTC")).toEqual({
      open: false,
      nextOpening: at("2026-11-29T02:00:00Z"),
    });
    expect(windowState(at("2026-11-29T07:00:00Z"), [weekend], "UTC")).toEqual({
      open: false,
      nextOpening: at("2026-12-05T02:00:00Z"),
    });
  });

  it("are always open when there are none, and never close when they cover every hour", () => {
    expect(windowState(at("2026-11-25T12:00:00Z"), [], "UTC")).toEqual({ open: true });
    const always: MaintenanceWindow = { days: [...WEEKDAYS], start: "00:00", durationMinutes: 1440 };
    expect(windowState(at("2026-11-25T12:00:00Z"), [always], "UTC")).toEqual({ open: true });
  });

  it("stay open past midnight into the next day, and close once windows that overlap all closed", () => {
    const lateSaturday: MaintenanceWindow = { days: ["sat"], start: "23:00", durationMinutes: 120 };
    const earlySunday: MaintenanceWindow = { days: ["sun"], start: "00:30", durationMinutes: 60 };
    expect(windowState(at("2026-11-29T00:15:00Z"), [lateSaturday], "UTC")).toEqual({
      open: true,
      closesAt: at("2026-11-29T01:00:00Z"),
    });
    expect(windowState(at("2026-11-28T23:30:00Z"), [lateSaturday, earlySunday], "UTC")).toEqual({
      open: true,
      closesAt: at("2026-11-29T01:30:00Z"),
    });
  });
});

describe("maintenance windows across changes of the clocks", () => {
  const sundayAt = (start: string, durationMinutes = 60): MaintenanceWindow => ({
    days: ["sun"],
    start,
    durationMinutes,
  });

  it("open at the first instant after the gap when their start is skipped (Berlin, New York)", () => {
    // Europe/Berlin goes from 02:00 CET to 03:00 CEST at 01:00 UTC on 29 March 2026.
    expect(windowState(at("2026-03-28T12:00:00Z"), [sundayAt("02:30")], "Europe/Berlin")).toEqual({
      open: false,
      nextOpening: at("2026-03-29T01:00:00Z"),
    });
    expect(windowState(at("2026-03-29T01:30:00Z"), [sundayAt("02:30")], "Europe/Berlin")).toEqual({
      open: true,
      closesAt: at("2026-03-29T02:00:00Z"),
    });
    // America/New_York goes from 02:00 EST to 03:00 EDT at 07:00 UTC on 8 March 2026.
    expect(windowState(at("2026-03-07T12:00:00Z"), [sundayAt("02:30")], "America/New_York")).toEqual({
      open: false,
      nextOpening: at("2026-03-08T07:00:00Z"),
    });
  });

  it("open once, at the first of two equal wall-clock times, when the clocks go back", () => {
    // America/New_York goes from 02:00 EDT back to 01:00 EST at 06:00 UTC on 1 November 2026.
    const window = sundayAt("01:30");
    expect(windowState(at("2026-10-31T12:00:00Z"), [window], "America/New_York")).toEqual({
      open: false,
      nextOpening: at("2026-11-01T05:30:00Z"),
    });
    // The second 01:30, at 06:30 UTC, is where the 60 elapsed minutes end, not a second opening.
    expect(windowState(at("2026-11-01T06:45:00Z"), [window], "America/New_York")).toEqual({
      open: false,
      nextOpening: at("2026-11-08T06:30:00Z"),
    });
    // Europe/Berlin goes from 03:00 CEST back to 02:00 CET at 01:00 UTC on 25 October 2026.
    expect(windowState(at("2026-10-24T12:00:00Z"), [sundayAt("02:30")], "Europe/Berlin")).toEqual({
      open: false,
      nextOpening: at("2026-10-25T00:30:00Z"),
    });
  });

  it("last their minutes of elapsed time over a change, so their wall-clock end moves with it", () => {
    // 01:00 CET plus 240 minutes is 05:00 UTC, which Berlin's clocks show as 06:00 CEST.
    expect(windowState(at("2026-03-29T00:30:00Z"), [sundayAt("01:00", 240)], "Europe/Berlin")).toEqual({
      open: true,
      closesAt: at("2026-03-29T04:00:00Z"),
    });
  });

  const zones = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"];
  const windowArbitrary = fc.record({
    days: fc.uniqueArray(fc.constantFrom(...WEEKDAYS), { minLength: 1 }),
    start: fc
      .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
      .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`),
    durationMinutes: fc.integer({ min: 1, max: 600 }),
  });
  const cases = fc.record({
    now: fc.integer({ min: at("2026-01-01T00:00:00Z"), max: at("2028-01-01T00:00:00Z") }),
    windows: fc.array(windowArbitrary, { minLength: 1, maxLength: 4 }),
    zone: fc.constantFrom(...zones),
  });

  it("open at their next opening and not a millisecond before; close at their closing and not before", () => {
    fc.assert(
      fc.property(cases, ({ now, windows, zone }) => {
        const state = windowState(now, windows, zone);
        if (!state.open) {
          const opening = state.nextOpening as number;
          expect(opening).toBeGreaterThan(now);
          expect(windowState(opening, windows, zone).open).toBe(true);
          expect(windowState(opening - 1, windows, zone).open).toBe(false);
        } else if (state.closesAt !== undefined) {
          expect(windowState(state.closesAt, windows, zone).open).toBe(false);
          expect(windowState(state.closesAt - 1, windows, zone).open).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("sets of maintenance windows that must all be open", () => {
  const nights: MaintenanceWindow = { days: [...WEEKDAYS], start: "01:00", durationMinutes: 240 };

  it("are open only while every set is, until the first of them closes", () => {
    // Saturday 03:00 UTC: the weekend window (02:00-06:00) and the nightly one (01:00-05:00) are both open.
    expect(windowsTogetherState(at("2026-11-28T03:00:00Z"), [[weekend], [nights]], "UTC")).toEqual({
      open: true,
      closesAt: at("2026-11-28T05:00:00Z"),
    });
    // Saturday 01:30: the nightly window is open, the weekend one opens at 02:00.
    expect(windowsTogetherState(at("2026-11-28T01:30:00Z"), [[weekend], [nights]], "UTC")).toEqual({
      open: false,
      nextOpening: at("2026-11-28T02:00:00Z"),
    });
  });

  it("open next when all are open together, not when each opens alone", () => {
    // Wednesday noon: the nightly window opens at 01:00 on Thursday, but the weekend one only on Saturday.
    expect(windowsTogetherState(at("2026-11-25T12:00:00Z"), [[nights], [weekend]], "UTC")).toEqual({
      open: false,
      nextOpening: at("2026-11-28T02:00:00Z"),
    });
    const late: MaintenanceWindow = { days: ["sat"], start: "05:30", durationMinutes: 60 };
    // Saturday's nightly window closes at 05:00 before the late one opens; Sunday's does not open at all.
    const lateAndNights = [[late], [{ ...nights, days: ["sat" as const, "sun" as const] }]];
    expect(windowsTogetherState(at("2026-11-28T00:00:00Z"), lateAndNights, "UTC")).toEqual({ open: false });
  });

  it("count sets with no windows as always open, and no sets at all as open", () => {
    expect(windowsTogetherState(at("2026-11-25T12:00:00Z"), [], "UTC")).toEqual({ open: true });
    expect(windowsTogetherState(at("2026-11-28T03:00:00Z"), [[], [weekend]], "UTC")).toEqual(
      windowState(at("2026-11-28T03:00:00Z"), [weekend], "UTC"),
    );
    expect(windowsTogetherState(at("2026-11-25T12:00:00Z"), [[weekend], []], "UTC")).toEqual(
      windowState(at("2026-11-25T12:00:00Z"), [weekend], "UTC"),
    );
  });

  it("meet across a change of the clocks in the tenant's zone (Berlin)", () => {
    // Europe/Berlin goes from 02:00 CET to 03:00 CEST at 01:00 UTC on Sunday 29 March 2026: a window from
    // 02:30 (skipped) opens at 03:00 CEST (01:00 UTC); one from 03:15 CEST (01:15 UTC) for an hour.
    const skipped: MaintenanceWindow = { days: ["sun"], start: "02:30", durationMinutes: 60 };
    const after: MaintenanceWindow = { days: ["sun"], start: "03:15", durationMinutes: 60 };
    expect(windowsTogetherState(at("2026-03-28T12:00:00Z"), [[skipped], [after]], "Europe/Berlin")).toEqual({
      open: false,
      nextOpening: at("2026-03-29T01:15:00Z"),
    });
    expect(windowsTogetherState(at("2026-03-29T01:20:00Z"), [[skipped], [after]], "Europe/Berlin")).toEqual({
      open: true,
      closesAt: at("2026-03-29T02:00:00Z"),
    });
  });

  it("are open exactly when every set is open, and next open when every set is (property)", () => {
    const windowArb = fc.record({
      days: fc.subarray([...WEEKDAYS], { minLength: 1 }),
      start: fc
        .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
        .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`),
      durationMinutes: fc.integer({ min: 1, max: 600 }),
    });
    const setsArb = fc.array(fc.array(windowArb, { minLength: 1, maxLength: 3 }), {
      minLength: 1,
      maxLength: 3,
    });
    const nowArb = fc.integer({ min: at("2026-01-01T00:00:00Z"), max: at("2026-12-31T00:00:00Z") });
    const zoneArb = fc.constantFrom("UTC", "Europe/Berlin", "America/New_York");
    fc.assert(
      fc.property(setsArb, nowArb, zoneArb, (sets, now, zone) => {
        const allOpen = (instant: number) =>
          sets.every((windows) => windowState(instant, windows, zone).open);
        const state = windowsTogetherState(now, sets, zone);
        expect(state.open).toBe(allOpen(now));
        if (state.nextOpening !== undefined) {
          expect(allOpen(state.nextOpening)).toBe(true);
          expect(allOpen(state.nextOpening - 1)).toBe(false);
        }
        if (state.closesAt !== undefined) {
          expect(allOpen(state.closesAt - 1)).toBe(true);
          expect(allOpen(state.closesAt)).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("maintenance windows as requests give them", () => {
  it("keep valid windows, without repeated days", () => {
    expect(maintenanceWindowsOf([{ ...weekend, days: ["sat", "sun", "sat"] }])).toEqual([weekend]);
  });

  it.each([
    ["no days", { ...weekend, days: [] }],
    ["an unknown day", { ...weekend, days: ["someday"] }],
    ["a start past 23:59", { ...weekend, start: "24:00" }],
    ["a start without minutes", { ...weekend, start: "2" }],
    ["no minutes", { ...weekend, durationMinutes: 0 }],
    ["more than a week", { ...weekend, durationMinutes: 7 * 24 * 60 + 1 }],
  ])("refuse a window with %s", (_, window) => {
    expect(() => maintenanceWindowsOf([window as MaintenanceWindow])).toThrow(BeaconError);
  });

  it("refuse more than 20 windows", () => {
    expect(() => maintenanceWindowsOf(Array.from({ length: 21 }, () => weekend))).toThrow(/at most 20/);
  });

  it("know time zones by Intl's name for them", () => {
    expect(canonicalTimeZone("europe/berlin")).toBe("Europe/Berlin");
    expect(canonicalTimeZone("UTC")).toBe("UTC");
    expect(canonicalTimeZone("Mars/Olympus_Mons")).toBeUndefined();
  });
});

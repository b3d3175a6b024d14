/**
 * Recurring maintenance windows in a tenant's time zone, and whether they are open at an instant. Pure
 * arithmetic on instants (ms since the epoch); the zone's rules come from Intl, so no library is needed.
 *
 * A window opens on each of its days at its start in the zone's wall-clock time: when that time does not
 * exist (the hour skipped when clocks go forward), at the first instant after the gap; when it exists twice
 * (clocks go back), at the first. It stays open `durationMinutes` of elapsed time from there, so a window
 * over a change of the clocks lasts as long as any other, and its wall-clock end moves by the change.
 */
import { BeaconError } from "../errors.js";

/** Week days as Date's getUTCDay numbers them. */
export const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface MaintenanceWindow {
  days: Weekday[];
  /** Wall-clock time of day it opens, `HH:MM` in 24 hours. */
  start: string;
  /** How long it stays open, in elapsed minutes. */
  durationMinutes: number;
}

/** Whether windows are open at an instant; no windows at all means always open. */
export interface WindowState {
  open: boolean;
  /** When closed: when it opens next; absent only when sets of windows that must all be open never are. */
  nextOpening?: number;
  /** When open: when it closes; absent when there are no windows, or they stay open a week and more. */
  closesAt?: number;
}

export const DEFAULT_TIME_ZONE = "UTC";
export const MAX_WINDOWS = 20;
/** A window lasts a week at most, which bounds how far back an open one can have opened. */
export const MAX_WINDOW_MINUTES = 7 * 24 * 60;

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** Days before an instant's date on which a window still open at it may have opened. */
const DAYS_BACK = MAX_WINDOW_MINUTES / (24 * 60) + 1;
/** Days after an instant's date among which every window opens at least once. */
const DAYS_AHEAD = 8;
const START = /^([01]\d|2[0-3]):([0-5]\d)$/;

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** The zone's name as Intl knows it (`europe/berlin` is `Europe/Berlin`), or undefined when it knows none. */
export function canonicalTimeZone(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The zone's wall-clock time at an instant, counted as if it were UTC. */
function wallOf(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatOf(timeZone).formatToParts(instant))
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  const seconds = Date.UTC(
    parts.year ?? 0,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return seconds + (((instant % 1000) + 1000) % 1000);
}

const offsetAt = (instant: number, timeZone: string): number => wallOf(instant, timeZone) - instant;

/**
 * The first instant whose wall-clock time is `wall`: of two (clocks went back), the earlier; in a gap
 * (clocks went forward), the first instant after it. Changes of the clocks are months apart, so the offsets
 * a day either side are the only two that can apply.
 */
function instantOf(wall: number, timeZone: string): number {
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  // The larger offset gives the earlier instant.
  for (const offset of before >= after ? [before, after] : [after, before])
    if (offsetAt(wall - offset, timeZone) === offset) return wall - offset;
  // In the gap: the change happens between these two instants; find it to the millisecond.
  let low = wall - after;
  let high = wall - before;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (offsetAt(middle, timeZone) === after) high = middle;
    else low = middle;
  }
  return high;
}

const minutesOf = (start: string): number => {
  const [, hours, minutes] = START.exec(start) ?? [];
  return Number(hours) * 60 + Number(minutes);
};

interface Occurrence {
  opensAt: number;
  closesAt: number;
}

/** Every opening of the windows on the zone's dates from `firstDay` to `lastDay` (days since the epoch), in order. */
function occurrences(
  windows: MaintenanceWindow[],
  timeZone: string,
  firstDay: number,
  lastDay: number,
): Occurrence[] {
  const found: Occurrence[] = [];
  for (let day = firstDay; day <= lastDay; day++) {
    const weekday = WEEKDAYS[new Date(day * DAY_MS).getUTCDay()] as Weekday;
    for (const window of windows) {
      if (!window.days.includes(weekday)) continue;
      const opensAt = instantOf(day * DAY_MS + minutesOf(window.start) * MINUTE_MS, timeZone);
      found.push({ opensAt, closesAt: opensAt + window.durationMinutes * MINUTE_MS });
    }
  }
  return found.sort((a, b) => a.opensAt - b.opensAt);
}

/**
 * Whether the windows are open at `now` in the zone; when open, when they close (windows that overlap or
 * touch count as one); when closed, when they open next.
 */
export function windowState(now: number, windows: MaintenanceWindow[], timeZone: string): WindowState {
  if (windows.length === 0) return { open: true };
  const today = Math.floor(wallOf(now, timeZone) / DAY_MS);
  const all = occurrences(windows, timeZone, today - DAYS_BACK, today + DAYS_AHEAD);
  if (!all.some((occurrence) => occurrence.opensAt <= now && now < occurrence.closesAt)) {
    const next = all.find((occurrence) => occurrence.opensAt > now) as Occurrence;
    return { open: false, nextOpening: next.opensAt };
  }
  let closesAt = now;
  for (const occurrence of all)
    if (occurrence.opensAt <= closesAt) closesAt = Math.max(closesAt, occurrence.closesAt);
  const lastOpening = (all.at(-1) as Occurrence).opensAt;
  return closesAt > lastOpening ? { open: true } : { open: true, closesAt };
}

/** How far ahead sets of windows are searched for an instant when all are open: past it, they never are. */
const TOGETHER_HORIZON_MS = 2 * DAYS_AHEAD * DAY_MS;

/**
 * Whether every set of windows is open at `now` (an agent's class's and each of its groups', which must all
 * be): when they are, the first of them to close closes them; when not, they open together at the first
 * instant at which each set is open. No set is open before the latest next opening of those closed now, so
 * the search moves from one such opening to the next; weekly windows that never meet within two weeks never will.
 */
export function windowsTogetherState(
  now: number,
  windowSets: readonly MaintenanceWindow[][],
  timeZone: string,
): WindowState {
  const sets = windowSets.filter((windows) => windows.length > 0);
  for (let at = now; at <= now + TOGETHER_HORIZON_MS; ) {
    const states = sets.map((windows) => windowState(at, windows, timeZone));
    const closed = states.filter((state) => !state.open);
    if (closed.length === 0) {
      if (at > now) return { open: false, nextOpening: at };
      const closings = states.flatMap((state) => (state.closesAt === undefined ? [] : [state.closesAt]));
      return closings.length > 0 ? { open: true, closesAt: Math.min(...closings) } : { open: true };
    }
    at = Math.max(...closed.map((state) => state.nextOpening as number));
  }
  return { open: false };
}

/** Windows as a request gives them, checked: the HTTP layer's schema is not the only door. */
export function maintenanceWindowsOf(windows: MaintenanceWindow[]): MaintenanceWindow[] {
  const invalid = (message: string): never => {
    throw new BeaconError("invalid_request", `maintenanceWindows: ${message}`);
  };
  if (windows.length > MAX_WINDOWS) invalid(`at most ${MAX_WINDOWS} windows`);
  return windows.map((window, index) => {
    const days = [...new Set(window.days)];
    if (days.length === 0 || days.some((day) => !WEEKDAYS.includes(day)))
      invalid(`window ${index} needs days among ${WEEKDAYS.join(", ")}`);
    if (!START.test(window.start)) invalid(`window ${index} needs a start of HH:MM`);
    const minutes = window.durationMinutes;
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_WINDOW_MINUTES)
      invalid(`window ${index} needs durationMinutes from 1 to ${MAX_WINDOW_MINUTES}`);
    return { days, start: window.start, durationMinutes: minutes };
  });
}

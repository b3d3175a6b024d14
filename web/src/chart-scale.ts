/** The fleet history's ranges, scales and ticks: arithmetic only, so it is tested without a browser. */

const MINUTE_MS = 60_000;

/** A chart of more points than this is wider than a phone has pixels for a line to read. */
export const MAX_POINTS = 120;

export interface HistoryRange {
  label: string;
  minutes: number;
}

export const HISTORY_RANGES: readonly HistoryRange[] = [
  { label: "1 h", minutes: 60 },
  { label: "6 h", minutes: 360 },
  { label: "24 h", minutes: 1440 },
];

/** Seconds per point: whole minutes (the API's rule), as few as keep the range within `maxPoints`. */
export function stepSecondsFor(minutes: number, maxPoints = MAX_POINTS): number {
  return Math.max(1, Math.ceil(minutes / maxPoints)) * 60;
}

/**
 * The range to ask for, ending at the minute after `now` so the current minute is in it and the API,
 * which takes `to` up to its minute, reads exactly `minutes` (never over its day).
 */
export function rangeEndingAt(now: number, minutes: number): { from: string; to: string } {
  const to = Math.ceil((now + 1) / MINUTE_MS) * MINUTE_MS;
  return { from: new Date(to - minutes * MINUTE_MS).toISOString(), to: new Date(to).toISOString() };
}

/** Maps `domain` linearly onto `range`; an empty domain maps to the range's start. */
export function linearScale(domain: readonly [number, number], range: readonly [number, number]) {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0;
  return (value: number) => (span === 0 ? r0 : r0 + ((value - d0) / span) * (r1 - r0));
}

/**
 * Counts' axis: whole-number ticks from 0 in steps of 1, 2 or 5 times a power of ten, at most `count`
 * steps, the last at or above `max`.
 */
export function countTicks(max: number, count = 4): number[] {
  if (max <= 0) return [0, 1];
  const rough = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = Math.max(1, [1, 2, 5, 10].map((f) => f * magnitude).find((s) => s >= rough) ?? magnitude);
  const top = Math.ceil(max / step) * step;
  return Array.from({ length: Math.round(top / step) + 1 }, (_, index) => index * step);
}

const TICK_MINUTES = [5, 10, 15, 30, 60, 120, 180, 360, 720];

/**
 * Times' axis: ticks on round local times (every 5 min, 10 min, … 12 h, the finest giving at most
 * `count`) within [from, to]. `offsetMinutes` is the local zone's offset east of UTC at those times.
 */
export function timeTicks(from: number, to: number, count = 5, offsetMinutes = 0): number[] {
  const spanMinutes = (to - from) / MINUTE_MS;
  const every = (TICK_MINUTES.find((minutes) => spanMinutes / minutes <= count) ?? 1440) * MINUTE_MS;
  const offset = offsetMinutes * MINUTE_MS;
  const ticks: number[] = [];
  for (let tick = Math.ceil((from + offset) / every) * every - offset; tick <= to; tick += every) {
    ticks.push(tick);
  }
  return ticks;
}

/** An SVG path through the points, in order. */
export function linePath(points: readonly (readonly [number, number])[]): string {
  return points.map(([x, y], index) => `${index === 0 ? "M" : "L"}${round(x)},${round(y)}`).join(" ");
}

const round = (value: number) => Math.round(value * 10) / 10;

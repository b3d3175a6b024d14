/**
 * Versions as agents and bundles state them ("2.3.0", "0.15.0", "1.0.0-SNAPSHOT", "2.3"): dot-separated numbers
 * compared as numbers, a missing part counting as 0, then, as semantic versioning orders them, a version with a
 * pre-release part ("-SNAPSHOT", "-rc.1") before the release itself, pre-release identifiers compared numerically
 * when both are numbers and as text otherwise. Build metadata ("+b7") is ignored.
 */
const VERSION = /^v?(\d+(?:\.\d+)*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

interface ParsedVersion {
  numbers: number[];
  preRelease: string[];
}

function parse(version: string): ParsedVersion | undefined {
  const match = VERSION.exec(version.trim());
  if (!match) return undefined;
  return {
    numbers: (match[1] as string).split(".").map(Number),
    preRelease: match[2] === undefined ? [] : match[2].split("."),
  };
}

export const isVersion = (version: string): boolean => parse(version) !== undefined;

const NUMERIC = /^\d+$/;

function compareIdentifiers(a: string, b: string): number {
  const aNumeric = NUMERIC.test(a);
  const bNumeric = NUMERIC.test(b);
  if (aNumeric && bNumeric) return Math.sign(Number(a) - Number(b));
  // A numeric identifier has lower precedence than an alphanumeric one.
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function comparePreRelease(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return Math.sign(b.length - a.length);
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const order = compareIdentifiers(a[index] as string, b[index] as string);
    if (order !== 0) return order;
  }
  return Math.sign(a.length - b.length);
}

/** Negative, zero or positive as `a` orders before, with or after `b`; undefined when either is no version. */
export function compareVersions(a: string, b: string): number | undefined {
  const left = parse(a);
  const right = parse(b);
  if (!left || !right) return undefined;
  for (let index = 0; index < Math.max(left.numbers.length, right.numbers.length); index++) {
    const order = Math.sign((left.numbers[index] ?? 0) - (right.numbers[index] ?? 0));
    if (order !== 0) return order;
  }
  return comparePreRelease(left.preRelease, right.preRelease);
}

/** Versions from `atLeast` (inclusive) to `below` (exclusive), or `exactly` one; each bound optional. */
export interface VersionRange {
  atLeast?: string;
  below?: string;
  exactly?: string;
}

/** Whether the version lies in the range; a version that cannot be read lies in no range that bounds it. */
export function inRange(version: string | undefined, range: VersionRange): boolean {
  const bounds: [string | undefined, (order: number) => boolean][] = [
    [range.atLeast, (order) => order >= 0],
    [range.below, (order) => order < 0],
    [range.exactly, (order) => order === 0],
  ];
  return bounds.every(([bound, holds]) => {
    if (bound === undefined) return true;
    const order = version === undefined ? undefined : compareVersions(version, bound);
    return order !== undefined && holds(order);
  });
}

/** The bounds that are not versions, or that leave the range empty, as a person would be told. */
export function rangeProblems(range: VersionRange): string[] {
  const named = Object.entries(range).filter(([, bound]) => bound !== undefined) as [string, string][];
  const unreadable = named
    .filter(([, bound]) => !isVersion(bound))
    .map(([name]) => `"${name}" is not a version`);
  if (named.length === 0) return ["a version range needs atLeast, below or exactly"];
  if (unreadable.length > 0) return unreadable;
  if (range.exactly !== undefined && (range.atLeast !== undefined || range.below !== undefined))
    return ["exactly stands alone, without atLeast or below"];
  if (range.atLeast !== undefined && range.below !== undefined && !inRange(range.atLeast, range))
    return [`no version is at least ${range.atLeast} and below ${range.below}`];
  return [];
}

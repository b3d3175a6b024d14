/**
 * Readers for untyped C2 JSON. Both agent dialects are lenient about types (the C++ agent may send
 * "false" or "12" as strings), so every reader accepts the stringified form and ignores anything else.
 */
export type JsonObject = Record<string, unknown>;

export const asObject = (value: unknown): JsonObject | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;

export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export function asString(value: unknown): string | undefined {
  if (typeof value === "string") return value.length > 0 ? value : undefined;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

export function asNumber(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string" && value.trim() !== "") {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

/** A count (cores, bytes): a whole number from 0, within what every store Beacon writes to holds exactly. */
export function asCount(value: unknown): number | undefined {
  const count = asNumber(value);
  return count !== undefined && Number.isSafeInteger(count) && count >= 0 ? count : undefined;
}

export function asBoolean(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (value === "true") return true;
  if (value === "false") return false;
  return undefined;
}

/** Keeps a free-text field bounded before it reaches a log, an event or an item. */
export const truncate = (value: string | undefined, maxLength: number): string | undefined =>
  value === undefined || value.length <= maxLength ? value : `${value.slice(0, maxLength - 1)}…`;

/** Drops absent fields so that stored items and events carry only what is known. */
export function dropUndefined<T extends object>(value: T): T {
  // A loop over the keys, with no array of entries made and filtered: every heartbeat summarises many objects.
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const entry = (value as Record<string, unknown>)[key];
    if (entry !== undefined) kept[key] = entry;
  }
  return kept as T;
}

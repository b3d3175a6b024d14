import { BeaconError } from "./errors.js";
import { dropUndefined } from "./json.js";

/**
 * One page of a key-ordered list; `last` is the sort key to continue after, absent on the last page. A full
 * page names one even when nothing follows it (DynamoDB's query cannot tell), so a list may end on an empty page.
 */
export interface Page<T> {
  items: T[];
  last?: string;
}

export interface PageRequest {
  limit: number;
  /** Sort key of the last item already returned. */
  after?: string;
  descending?: boolean;
}

/** What a console list is asked: the cursor a page before answered, and how many at most. */
export interface ListQuery {
  cursor?: string;
  limit?: number;
}

/** Largest page any list returns; the OpenAPI document states the same bound. */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 25;

/**
 * A cursor carries only the sort key of the last item returned (agent id, class name, hash, serial),
 * never a tenant or a table key: the next query is rebuilt from the caller's own tenant, so a cursor
 * taken from another tenant can only ever point into the caller's own data.
 */
export function encodeCursor(after: string): string {
  return Buffer.from(JSON.stringify({ after }), "utf8").toString("base64url");
}

export function decodeCursor(
  cursor: string | undefined,
  isValidKey: (key: string) => boolean,
): string | undefined {
  if (cursor === undefined) return undefined;
  let after: unknown;
  try {
    after = (JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { after?: unknown }).after;
  } catch {
    after = undefined;
  }
  if (typeof after !== "string" || !isValidKey(after)) {
    throw new BeaconError("invalid_request", "The cursor is not one this list returned");
  }
  return after;
}

export function pageSize(limit: number | undefined): number {
  return Math.min(Math.max(limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
}

/** The page a list request asks for: its size bounded, its cursor checked against the list's keys. */
export const pageRequestOf = (
  request: { cursor?: string; limit?: number },
  isValidKey: (key: string) => boolean,
): PageRequest => ({ limit: pageSize(request.limit), after: decodeCursor(request.cursor, isValidKey) });

/** A list's answer: the page's items as views, and the cursor to the next page unless this was the last. */
export const pageBodyOf = <T, V>(page: Page<T>, view: (item: T) => V) =>
  dropUndefined({
    items: page.items.map(view),
    nextCursor: page.last === undefined ? undefined : encodeCursor(page.last),
  });

/**
 * The sort key of a log kept by time (an agent's events, the audit trail): the time zero-padded, so that
 * string order is time order, then an id that tells apart entries of the same millisecond.
 */
export const timeOrderedKey = (at: number, id: string): string => `${timeKeyPrefix(at)}#${id}`;

/** What every time-ordered key of this millisecond starts with, and sorts after. */
export const timeKeyPrefix = (at: number): string => String(Math.max(0, Math.floor(at))).padStart(15, "0");

export const isTimeOrderedKey = (key: string): boolean => /^\d{15}#.{1,256}$/.test(key);

/** The time a time-ordered key starts with. */
export const timeOfKey = (key: string): number => Number(key.slice(0, 15));

export const toIso = (epochMs: number | undefined): string | undefined =>
  epochMs === undefined ? undefined : new Date(epochMs).toISOString();

/** Every item of a paged read, page after page of the largest size until the last. */
export async function allPagesOf<T>(read: (page: PageRequest) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let after: string | undefined;
  do {
    const page = await read({ limit: MAX_PAGE_SIZE, after });
    items.push(...page.items);
    after = page.last;
  } while (after !== undefined);
  return items;
}

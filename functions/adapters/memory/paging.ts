import type { Page, PageRequest } from "../../core/paging.js";

/**
 * One page of keyed entries as a DynamoDB query reads it: up to `limit` entries past `after` in key order
 * (descending when asked), narrowed by `keep` only once read, as a filter expression is. Like the query,
 * a full page names its last key even when nothing follows it. The items are copies, as a read's are.
 */
export function pageOf<T>(
  entries: [string, T][],
  request: PageRequest,
  keep: (item: T) => boolean = () => true,
): Page<T> {
  const sorted = entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (request.descending) sorted.reverse();
  const after = request.after;
  const rest =
    after === undefined ? sorted : sorted.filter(([key]) => (request.descending ? key < after : key > after));
  const window = rest.slice(0, request.limit);
  const last = window.length === request.limit ? window.at(-1)?.[0] : undefined;
  return {
    items: window
      .map(([, item]) => item)
      .filter(keep)
      .map((item) => structuredClone(item)),
    last,
  };
}

/** The tenant's items of a map, keyed for pageOf. */
export const ofTenant = <T extends { tenant: string }>(
  map: Map<string, T>,
  tenant: string,
  keyOf: (item: T) => string,
) =>
  [...map.values()]
    .filter((item) => item.tenant === tenant)
    .map((item) => [keyOf(item), item] as [string, T]);

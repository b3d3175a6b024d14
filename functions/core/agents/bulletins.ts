import type { BulletinIds } from "../c2/model.js";

/**
 * How many of the ERROR bulletins a heartbeat lists the agent had not listed before, for fleet history: an
 * agent lists each bulletin again in every heartbeat while it keeps it (a Java agent heartbeating every second
 * lists one up to 300 times), so counting what a heartbeat lists counts one bulletin many times. Bulletins are
 * numbered in order, so the new ones are those above the highest id the agent listed before
 * (`previousHighest`). Ids lower than that are a restarted agent's, numbering from 1 again: all are new. With
 * no earlier id known (the agent's first bulletins, or the cache lost them), or bulletins without ids, every
 * ERROR bulletin listed counts.
 */
export function newErrorBulletins(
  ids: BulletinIds | undefined,
  listedErrors: number | undefined,
  previousHighest: number | undefined,
): number | undefined {
  if (listedErrors === undefined) return undefined;
  if (ids?.highest === undefined || previousHighest === undefined || ids.highest < previousHighest)
    return listedErrors;
  return ids.errors.filter((id) => id > previousHighest).length;
}

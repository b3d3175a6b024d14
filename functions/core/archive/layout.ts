import type { BeaconEvent } from "../events/model.js";
import type { StreamRecord } from "../events/ports.js";
import type { ShardSpan } from "../events/positions.js";

/** Where the archive keeps events in its bucket; the Glue table's location template names the same folders. */
export const ARCHIVE_PREFIX = "events";

/** The folder of the archive an event lands in: its tenant, and the UTC day and hour Beacon recorded it. */
export interface ArchivePartition {
  tenant: string;
  /** YYYY-MM-DD */
  day: string;
  /** 00 to 23 */
  hour: string;
}

export function partitionOf(event: BeaconEvent): ArchivePartition {
  const iso = new Date(event.at).toISOString();
  return { tenant: event.tenant, day: iso.slice(0, 10), hour: iso.slice(11, 13) };
}

export const partitionPath = ({ tenant, day, hour }: ArchivePartition): string =>
  `${ARCHIVE_PREFIX}/tenant=${tenant}/day=${day}/hour=${hour}/`;

const HOUR_MS = 3_600_000;

/**
 * The folders that hold the tenant's events recorded in [from, to) (epoch ms): one per hour, or, without a
 * bound, the tenant's whole archive.
 */
export function partitionPathsOf(tenant: string, from?: number, to?: number): string[] {
  if (from === undefined || to === undefined) return [`${ARCHIVE_PREFIX}/tenant=${tenant}/`];
  const paths: string[] = [];
  for (let hour = Math.floor(from / HOUR_MS) * HOUR_MS; hour < to; hour += HOUR_MS) {
    const iso = new Date(hour).toISOString();
    paths.push(partitionPath({ tenant, day: iso.slice(0, 10), hour: iso.slice(11, 13) }));
  }
  return paths;
}

/** One object of the archive: the events of one partition among a batch's records, in their stream order. */
export interface ArchiveObject {
  key: string;
  events: BeaconEvent[];
  /** Index, among the batch's records, of this object's first record. */
  firstIndex: number;
}

/**
 * Splits a batch of one shard's records into the objects the archive writes. Each object is named by its
 * partition, its shard and the positions of its first and last record, so a batch delivered again exactly
 * as before writes the same objects with the same content (within a shard, a partition's records between two
 * positions are always the same). A batch split differently writes objects of other names, and the events
 * in both are archived twice, each time with its own eventId: queries count distinct eventIds.
 */
export function archiveObjectsOf(records: readonly StreamRecord[]): ArchiveObject[] {
  const groups = new Map<string, { records: StreamRecord[]; firstIndex: number }>();
  records.forEach((record, index) => {
    const path = `${partitionPath(partitionOf(record.event))}${record.shard}`;
    const group = groups.get(path);
    if (group) group.records.push(record);
    else groups.set(path, { records: [record], firstIndex: index });
  });
  return [...groups.entries()].map(([path, group]) => {
    const first = group.records[0] as StreamRecord;
    const last = group.records.at(-1) as StreamRecord;
    return {
      key: `${path}-${first.position}-${last.position}.json.gz`,
      events: group.records.map((record) => record.event),
      firstIndex: group.firstIndex,
    };
  });
}

/** The shard and positions an archive object's key names: the records it holds lie within them. */
export function spanOfObject(key: string): ShardSpan | undefined {
  const match = /([^/]+)-(\d+)-(\d+)\.json\.gz$/.exec(key);
  return match
    ? { shard: match[1] as string, first: match[2] as string, last: match[3] as string }
    : undefined;
}

/** The events as JSON lines, each exactly as it was on the stream: what Athena's JSON SerDe reads. */
export const jsonLinesOf = (events: readonly BeaconEvent[]): string =>
  events.map((event) => `${JSON.stringify(event)}\n`).join("");

import type { AgentClassRecord } from "../agents/ports.js";
import type { ArchiveReader } from "../archive/ports.js";
import type { AssetRecord } from "../assets/model.js";
import type { FlowVersionRecord } from "../flows/ports.js";
import type { ManifestRecord } from "../manifests/ports.js";
import { allPagesOf, type Page, type PageRequest } from "../paging.js";
import type { Clock } from "../ports.js";
import type { UsageStore } from "./ports.js";
import { HOUR_MS } from "./usage.js";

export const DAY_MS = 24 * HOUR_MS;
const GIB = 1024 ** 3;

/** The kinds of object a tenant stores that are counted one by one; the archive is counted in bytes only. */
export const StoredKinds = ["manifests", "flowVersions", "assets", "debugBundles"] as const;
export type StoredKind = (typeof StoredKinds)[number];

export interface StoredCount {
  count: number;
  bytes: number;
}

/** What a tenant stores, as one day's snapshot found it: bytes as the stores keep them (compressed where they are). */
export type StoredFigures = Record<StoredKind, StoredCount> & { archive: { bytes: number } };

export interface StoredSnapshot {
  tenant: string;
  /** Days since the epoch (UTC). */
  day: number;
  takenAt: number;
  stored: StoredFigures;
  /**
   * The bytes of each whole day's folder of the tenant's archive (`YYYY-MM-DD`), as listed: a day ended is
   * written no more, so the next snapshot takes its figure from here rather than listing it again.
   */
  archiveDays: Record<string, number>;
}

/**
 * Where each figure is kept, which prices it: manifests and flow contents are DynamoDB items, assets, debug
 * bundles and the event archive S3 objects.
 */
export const STORED_IN_TABLE = ["manifests", "flowVersions"] as const;
export const STORED_IN_BUCKETS = ["assets", "debugBundles", "archive"] as const;

export const dayOf = (at: number): number => Math.floor(at / DAY_MS);

/** The lists a snapshot reads: each kind's records as its store keeps them, and the archive's bytes. */
export interface StoredSources {
  manifests: { list(tenant: string, page: PageRequest): Promise<Page<Pick<ManifestRecord, "gzipBytes">>> };
  classes: { list(tenant: string, page: PageRequest): Promise<Page<Pick<AgentClassRecord, "name">>> };
  flows: {
    list(
      tenant: string,
      className: string,
      page: PageRequest,
    ): Promise<Page<Pick<FlowVersionRecord, "hash" | "gzipBytes">>>;
  };
  assets: { list(tenant: string, page: PageRequest): Promise<Page<Pick<AssetRecord, "sizeBytes">>> };
  /** Bundles still served at `now`: an expired one's object is gone from the bucket. */
  debugBundles: { list(tenant: string, page: PageRequest, now: number): Promise<Page<{ bytes: number }>> };
  archive: Pick<ArchiveReader, "bytesUnder" | "foldersUnder">;
  /** The folder of the tenant's whole archive. */
  archivePrefix(tenant: string): string;
}

const counted = <T>(items: readonly T[], bytesOf: (item: T) => number): StoredCount => ({
  count: items.length,
  bytes: items.reduce((sum, item) => sum + bytesOf(item), 0),
});

/**
 * Flow versions counted one by one, their bytes once per content: the catalog keeps a content once per tenant
 * and hash however many classes publish it.
 */
export function flowVersionsStored(versions: readonly Pick<FlowVersionRecord, "hash" | "gzipBytes">[]) {
  const contents = new Map(versions.map((version) => [version.hash, version.gzipBytes]));
  return { count: versions.length, bytes: [...contents.values()].reduce((sum, bytes) => sum + bytes, 0) };
}

const ARCHIVE_DAY = /day=(\d{4}-\d{2}-\d{2})\/$/;

/**
 * The archive's bytes, day folder by day folder: the folders the bucket holds now (its lifecycle has removed
 * those past their retention), a day ended taken from the last snapshot when it has it, listed otherwise
 * (yesterday, or every day at a tenant's first snapshot), and today's listed as it is so far.
 */
async function archiveStored(
  sources: StoredSources,
  tenant: string,
  now: number,
  previous: StoredSnapshot | undefined,
) {
  const today = new Date(now).toISOString().slice(0, 10);
  const folders = await sources.archive.foldersUnder(sources.archivePrefix(tenant));
  // Listed all at once: a tenant's first snapshot lists each of its archive's days.
  const days = await Promise.all(
    folders.map(async (folder) => {
      const day = ARCHIVE_DAY.exec(folder)?.[1];
      if (day === undefined) return undefined;
      const known = day < today ? previous?.archiveDays[day] : undefined;
      return { day, bytes: known ?? (await sources.archive.bytesUnder(folder)) };
    }),
  );
  const archiveDays: Record<string, number> = {};
  let bytes = 0;
  for (const listed of days) {
    if (listed === undefined) continue;
    if (listed.day < today) archiveDays[listed.day] = listed.bytes;
    bytes += listed.bytes;
  }
  return { bytes, archiveDays };
}

/** What the tenant stores now, read from each store's own list (see docs/usage.md for what it costs). */
export async function storedFiguresOf(
  sources: StoredSources,
  tenant: string,
  now: number,
  previous?: StoredSnapshot,
): Promise<Pick<StoredSnapshot, "stored" | "archiveDays">> {
  const classes = await allPagesOf((page) => sources.classes.list(tenant, page));
  const versions = (
    await Promise.all(classes.map(({ name }) => allPagesOf((page) => sources.flows.list(tenant, name, page))))
  ).flat();
  const [manifests, assets, debugBundles, archive] = await Promise.all([
    allPagesOf((page) => sources.manifests.list(tenant, page)),
    allPagesOf((page) => sources.assets.list(tenant, page)),
    allPagesOf((page) => sources.debugBundles.list(tenant, page, now)),
    archiveStored(sources, tenant, now, previous),
  ]);
  return {
    stored: {
      manifests: counted(manifests, (manifest) => manifest.gzipBytes),
      flowVersions: flowVersionsStored(versions),
      assets: counted(assets, (asset) => asset.sizeBytes),
      debugBundles: counted(debugBundles, (bundle) => bundle.bytes),
      archive: { bytes: archive.bytes },
    },
    archiveDays: archive.archiveDays,
  };
}

/** The bytes a snapshot found in DynamoDB and in S3, which are priced apart. */
export function storedBytesOf(stored: StoredFigures) {
  const sum = (kinds: readonly (StoredKind | "archive")[]) =>
    kinds.reduce((total, kind) => total + stored[kind].bytes, 0);
  return { tableBytes: sum(STORED_IN_TABLE), bucketBytes: sum(STORED_IN_BUCKETS) };
}

/**
 * A month's storage in GB-months (GiB, as AWS bills storage): each day's snapshot stands for that day, a
 * day of the month's days. A day without a snapshot (before the first, or a day the sweeper did not reach
 * the tenant) counts nothing.
 */
export function storedGbMonthsOf(
  snapshots: readonly StoredSnapshot[],
  month: { fromHour: number; toHour: number },
) {
  const days = (month.toHour - month.fromHour) / 24;
  let tableGbMonths = 0;
  let bucketGbMonths = 0;
  for (const { stored } of snapshots) {
    const { tableBytes, bucketBytes } = storedBytesOf(stored);
    tableGbMonths += tableBytes / GIB / days;
    bucketGbMonths += bucketBytes / GIB / days;
  }
  return { tableGbMonths, bucketGbMonths };
}

/** The days (since the epoch) whose snapshots stand for the hours from `fromHour` up to `toHour`. */
export const storedDaysOf = (fromHour: number, toHour: number) => ({
  fromDay: Math.floor(fromHour / 24),
  toDay: Math.ceil(toHour / 24),
});

/** How far back a snapshot looks for the last one, whose archive days it need not list again. */
const PREVIOUS_SNAPSHOT_DAYS = 31;

/** Whether a snapshot found nothing at all: no object of any kind, no byte of archive. */
const storesNothing = (stored: StoredFigures): boolean =>
  stored.archive.bytes === 0 && StoredKinds.every((kind) => stored[kind].count === 0);

/** How often a sweeper container reads the remembered tenants again, to take up those remembered since. */
const REMEMBERED_TENANTS_REREAD_MS = HOUR_MS;

/**
 * Each tenant's daily snapshot of what it stores, taken by the sweeper's pass over the tenants: at most once
 * a day per tenant. A container remembers the day it took each tenant's, so later runs that day cost nothing;
 * a new container reads the tenant's last month of snapshots (one query) and writes only when the day has
 * none, so a second pass, or two containers at once, keep the day's first snapshot.
 *
 * The tenants are those the cache indexes and those the usage store remembers: a tenant whose snapshot
 * found something stored, or whose operators changed something that day (which may store a flow or an
 * asset before it has any agent). A cache lost, or a fleet all gone, still leaves what the tenant stores
 * counted. A snapshot that finds nothing stored forgets the tenant unless it was remembered that day.
 */
export function makeStoredSnapshots(deps: { usage: UsageStore; sources: StoredSources; clock: Clock }) {
  const takenOn = new Map<string, number>();
  let remembered: { readAt: number; tenants: string[] } | undefined;
  return {
    /** The tenants a pass takes snapshots of: these the cache indexes, and those remembered. */
    async tenants(cached: readonly string[]): Promise<string[]> {
      const now = deps.clock.now();
      if (remembered === undefined || now - remembered.readAt >= REMEMBERED_TENANTS_REREAD_MS)
        remembered = { readAt: now, tenants: await deps.usage.rememberedTenants() };
      return [...new Set([...cached, ...remembered.tenants])];
    },

    async take(tenant: string): Promise<"taken" | "already"> {
      const now = deps.clock.now();
      const day = dayOf(now);
      if (takenOn.get(tenant) === day) return "already";
      const recent = await deps.usage.readStored(tenant, day - PREVIOUS_SNAPSHOT_DAYS, day + 1);
      let outcome: "taken" | "already" = "already";
      if (recent.at(-1)?.day !== day) {
        const figures = await storedFiguresOf(deps.sources, tenant, now, recent.at(-1));
        if (await deps.usage.keepStored({ tenant, day, takenAt: now, ...figures })) outcome = "taken";
        if (storesNothing(figures.stored)) await deps.usage.forgetTenant(tenant, day * DAY_MS);
        else await deps.usage.rememberTenant(tenant, now);
      }
      takenOn.set(tenant, day);
      return outcome;
    },
  };
}

/**
 * Remembers the tenant of a change its operators made, for the daily snapshots (makeStoredSnapshots): once a
 * day per container, so that a day of a tenant's changes costs one write.
 */
export function makeTenantNotes(deps: { usage: Pick<UsageStore, "rememberTenant">; clock: Clock }) {
  const notedOn = new Map<string, number>();
  return async (tenant: string): Promise<void> => {
    const now = deps.clock.now();
    if (notedOn.get(tenant) === dayOf(now)) return;
    await deps.usage.rememberTenant(tenant, now);
    notedOn.set(tenant, dayOf(now));
  };
}

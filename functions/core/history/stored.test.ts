import { describe, expect, it } from "vitest";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryUsage } from "../../adapters/memory/usage.js";
import type { Principal } from "../identity/principal.js";
import type { Page } from "../paging.js";
import { makeUsageApi } from "./console-usage.js";
import { statementPricing } from "./statement.js";
import {
  DAY_MS,
  dayOf,
  flowVersionsStored,
  makeStoredSnapshots,
  makeTenantNotes,
  type StoredFigures,
  type StoredSources,
  storedBytesOf,
  storedGbMonthsOf,
} from "./stored.js";
import { HOUR_MS } from "./usage.js";

const GIB = 1024 ** 3;
const NOVEMBER = Date.UTC(2026, 10, 1);
const admin: Principal = { tenant: "acme", role: "admin", subject: "a" };

const onePage = <T>(items: T[]): Promise<Page<T>> => Promise.resolve({ items });

/** acme's stores as lists, each list counting its reads; bundles still served at `now` only. */
function acmeStores() {
  const reads = { lists: 0, archiveFolders: [] as string[] };
  const list =
    <T>(items: T[]) =>
    () => {
      reads.lists++;
      return onePage(items);
    };
  const bundles = [
    { bytes: 5_000, expiresAt: NOVEMBER + 10 * DAY_MS },
    { bytes: 7_000, expiresAt: NOVEMBER + 40 * DAY_MS },
  ];
  const sources: StoredSources = {
    manifests: { list: list([{ gzipBytes: 40_000 }, { gzipBytes: 60_000 }]) },
    classes: { list: list([{ name: "pumps" }, { name: "valves" }]) },
    flows: {
      list: (_tenant, className) => {
        reads.lists++;
        // The same content published to both classes is stored once.
        return onePage(
          className === "pumps"
            ? [
                { hash: "a", gzipBytes: 1_000 },
                { hash: "b", gzipBytes: 2_000 },
              ]
            : [{ hash: "a", gzipBytes: 1_000 }],
        );
      },
    },
    assets: { list: list([{ sizeBytes: 3 * GIB }]) },
    debugBundles: {
      list: (_tenant, _page, now) => {
        reads.lists++;
        return onePage(bundles.filter((bundle) => bundle.expiresAt > now));
      },
    },
    // Two days of archive, the second today's: 768 MiB then 256 MiB so far.
    archive: {
      foldersUnder: (prefix) => {
        reads.lists++;
        return Promise.resolve(
          prefix === "events/tenant=acme/" ? [`${prefix}day=2026-11-12/`, `${prefix}day=2026-11-13/`] : [],
        );
      },
      bytesUnder: (prefix) => {
        reads.lists++;
        reads.archiveFolders.push(prefix);
        return Promise.resolve(prefix.endsWith("day=2026-11-12/") ? 0.75 * GIB : 0.25 * GIB);
      },
    },
    archivePrefix: (tenant) => `events/tenant=${tenant}/`,
  };
  return { sources, reads };
}

const acmeStored: StoredFigures = {
  manifests: { count: 2, bytes: 100_000 },
  flowVersions: { count: 3, bytes: 3_000 },
  assets: { count: 1, bytes: 3 * GIB },
  debugBundles: { count: 1, bytes: 7_000 },
  archive: { bytes: GIB },
};

describe("what a tenant stores", () => {
  it("counts flow versions one by one and their contents' bytes once per hash", () => {
    expect(
      flowVersionsStored([
        { hash: "a", gzipBytes: 10 },
        { hash: "a", gzipBytes: 10 },
        { hash: "b", gzipBytes: 5 },
      ]),
    ).toEqual({ count: 3, bytes: 15 });
  });

  it("splits its bytes between DynamoDB (manifests, flows) and S3 (assets, bundles, archive)", () => {
    expect(storedBytesOf(acmeStored)).toEqual({ tableBytes: 103_000, bucketBytes: 4 * GIB + 7_000 });
  });

  it("prices a month in GB-months: each day's snapshot a day of the month, a day without one nothing", () => {
    const month = { fromHour: NOVEMBER / HOUR_MS, toHour: Date.UTC(2026, 11, 1) / HOUR_MS };
    const snapshot = (day: number, tableGib: number, bucketGib: number) => ({
      tenant: "acme",
      day,
      takenAt: day * DAY_MS,
      stored: {
        ...acmeStored,
        manifests: { count: 1, bytes: tableGib * GIB },
        flowVersions: { count: 0, bytes: 0 },
        assets: { count: 1, bytes: bucketGib * GIB },
        debugBundles: { count: 0, bytes: 0 },
        archive: { bytes: 0 },
      },
      archiveDays: {},
    });
    const first = dayOf(NOVEMBER);
    // 30 days of 3 GiB in S3 are 3 GB-months; 15 days of 2 GiB in DynamoDB are 1.
    const days = Array.from({ length: 30 }, (_, index) => snapshot(first + index, index < 15 ? 2 : 0, 3));
    const months = storedGbMonthsOf(days, month);
    expect(months.tableGbMonths).toBeCloseTo(1, 12);
    expect(months.bucketGbMonths).toBeCloseTo(3, 12);
    expect(storedGbMonthsOf(days.slice(0, 10), month).bucketGbMonths).toBeCloseTo(1, 12);
  });
});

describe("the daily snapshot of what a tenant stores", () => {
  // 2026-11-13T05:00Z
  const now = NOVEMBER + 12 * DAY_MS + 5 * HOUR_MS;

  it("reads each store once, keeps the figures under the day and answers them in GET /usage", async () => {
    const usage = new MemoryUsage();
    const clock = new ManualClock(now);
    const { sources, reads } = acmeStores();
    expect(await makeStoredSnapshots({ usage, sources, clock }).take("acme")).toBe("taken");
    // Classes, two classes' flows, manifests, assets, bundles, the archive's days and each day's folder.
    expect(reads.lists).toBe(9);
    expect(await usage.readStored("acme", dayOf(now), dayOf(now) + 1)).toEqual([
      {
        tenant: "acme",
        day: dayOf(now),
        takenAt: now,
        stored: acmeStored,
        archiveDays: { "2026-11-12": 0.75 * GIB },
      },
    ]);
    const { body } = await makeUsageApi({ usage, clock }).get(admin, {});
    expect(body).toMatchObject({
      storedDays: [
        {
          day: new Date(dayOf(now) * DAY_MS).toISOString(),
          takenAt: new Date(now).toISOString(),
          ...acmeStored,
        },
      ],
    });
  });

  it("is taken at most once a day: later passes read nothing, another container writes nothing new", async () => {
    const usage = new MemoryUsage();
    const clock = new ManualClock(now);
    const { sources, reads } = acmeStores();
    const snapshots = makeStoredSnapshots({ usage, sources, clock });
    await snapshots.take("acme");
    clock.advance(6 * HOUR_MS);
    expect(await snapshots.take("acme")).toBe("already");
    expect(reads.lists).toBe(9);
    const another = makeStoredSnapshots({ usage, sources, clock });
    expect(await another.take("acme")).toBe("already");
    expect(reads.lists).toBe(9);
    expect(usage.snapshots.size).toBe(1);
    expect([...usage.snapshots.values()][0]?.takenAt).toBe(now);
    // The next day is a day of its own; the archive's day the last snapshot listed is not listed again.
    reads.archiveFolders.length = 0;
    clock.advance(DAY_MS);
    expect(await snapshots.take("acme")).toBe("taken");
    expect(reads.archiveFolders).toEqual(["events/tenant=acme/day=2026-11-13/"]);
    const [, next] = await usage.readStored("acme", 0, dayOf(now) + 10);
    expect(next?.archiveDays).toEqual({ "2026-11-12": 0.75 * GIB, "2026-11-13": 0.25 * GIB });
    expect(next?.stored.archive.bytes).toBe(GIB);
  });

  it("covers the tenants the cache indexes and those remembered, whose list it reads again each hour", async () => {
    const usage = new MemoryUsage();
    const clock = new ManualClock(now);
    let listed = 0;
    const rememberedTenants = usage.rememberedTenants.bind(usage);
    usage.rememberedTenants = () => {
      listed++;
      return rememberedTenants();
    };
    await usage.rememberTenant("gone-fleet", now - DAY_MS);
    await usage.rememberTenant("acme", now - DAY_MS);
    const snapshots = makeStoredSnapshots({ usage, sources: acmeStores().sources, clock });
    expect((await snapshots.tenants(["acme", "globex"])).sort()).toEqual(["acme", "globex", "gone-fleet"]);
    await usage.rememberTenant("initech", now);
    clock.advance(HOUR_MS - 1);
    expect(await snapshots.tenants([])).not.toContain("initech");
    clock.advance(1);
    expect(await snapshots.tenants([])).toContain("initech");
    expect(listed).toBe(2);
  });

  it("remembers a tenant that stores something, and forgets one that stores nothing unless remembered that day", async () => {
    const usage = new MemoryUsage();
    const clock = new ManualClock(now);
    const nothing = (): Promise<Page<never>> => onePage([]);
    const empty: StoredSources = {
      manifests: { list: nothing },
      classes: { list: nothing },
      flows: { list: nothing },
      assets: { list: nothing },
      debugBundles: { list: nothing },
      archive: { foldersUnder: () => Promise.resolve([]), bytesUnder: () => Promise.resolve(0) },
      archivePrefix: (tenant) => `events/tenant=${tenant}/`,
    };
    await makeStoredSnapshots({ usage, sources: acmeStores().sources, clock }).take("acme");
    expect(usage.tenantsRemembered.get("acme")).toBe(now);
    // Remembered yesterday, nothing stored today: forgotten, its day's snapshot of zeros still kept.
    await usage.rememberTenant("gone", now - DAY_MS);
    expect(await makeStoredSnapshots({ usage, sources: empty, clock }).take("gone")).toBe("taken");
    expect(usage.tenantsRemembered.has("gone")).toBe(false);
    // Noted today before the snapshot read its stores (an upload may follow unseen): kept for tomorrow's.
    await usage.rememberTenant("new", now - HOUR_MS);
    await makeStoredSnapshots({ usage, sources: empty, clock }).take("new");
    expect(usage.tenantsRemembered.has("new")).toBe(true);
  });

  it("notes a tenant whose operators changed something once a day per container", async () => {
    const usage = new MemoryUsage();
    const clock = new ManualClock(now);
    const writes: number[] = [];
    const note = makeTenantNotes({
      usage: {
        rememberTenant: (tenant, at) => {
          writes.push(at);
          return usage.rememberTenant(tenant, at);
        },
      },
      clock,
    });
    await note("acme");
    clock.advance(HOUR_MS);
    await note("acme");
    await note("globex");
    clock.advance(DAY_MS);
    await note("acme");
    expect(writes).toEqual([now, now + HOUR_MS, now + HOUR_MS + DAY_MS]);
    expect((await usage.rememberedTenants()).sort()).toEqual(["acme", "globex"]);
  });

  it("keeps the first snapshot when two containers take the day's at once", async () => {
    const usage = new MemoryUsage();
    const clock = new ManualClock(now);
    const outcomes = await Promise.all(
      [1, 2].map(() => makeStoredSnapshots({ usage, sources: acmeStores().sources, clock }).take("acme")),
    );
    expect(outcomes.sort()).toEqual(["already", "taken"]);
    expect(usage.snapshots.size).toBe(1);
  });

  it("prices the month's snapshots in the statement, at DynamoDB's and S3's prices per GB-month", async () => {
    const usage = new MemoryUsage();
    const clock = new ManualClock(now);
    await makeStoredSnapshots({ usage, sources: acmeStores().sources, clock }).take("acme");
    const pricing = statementPricing();
    const { body } = await makeUsageApi({ usage, clock, usagePricing: pricing }).statement(admin, {
      month: "2026-11",
    });
    const { tableBytes, bucketBytes } = storedBytesOf(acmeStored);
    const table = tableBytes / GIB / 30;
    const bucket = bucketBytes / GIB / 30;
    expect(body).toMatchObject({
      lines: expect.arrayContaining([
        expect.objectContaining({
          unit: "tableGbMonths",
          quantity: table,
          unitPrice: pricing.prices.tableGbMonths,
          amount: table * pricing.prices.tableGbMonths,
        }),
        expect.objectContaining({
          unit: "bucketGbMonths",
          quantity: bucket,
          unitPrice: pricing.prices.bucketGbMonths,
          amount: bucket * pricing.prices.bucketGbMonths,
        }),
      ]),
      usage: { tableGbMonths: table, bucketGbMonths: bucket },
    });
  });
});

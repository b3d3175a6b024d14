import { expect, it } from "vitest";
import type { UsageStore } from "../../core/history/ports.js";
import { estimateAgents } from "../../core/history/sketch.js";
import type { StoredSnapshot } from "../../core/history/stored.js";
import { applyUsage, type UsageBatch, type UsageHourKey } from "../../core/history/usage.js";
import { contract } from "./contract.js";

const HOUR = 490_000;

/**
 * A batch of `heartbeats` heartbeats of one agent from `shard`, at positions from `first`, as the consumer makes:
 * each 100 bytes in and 24 out.
 */
const heartbeats = (key: UsageHourKey, shard: string, agentId: string, first: number, count: number) =>
  ({
    key,
    contributions: Array.from({ length: count }, (_, index) => ({
      shard,
      position: String(first + index),
      counts: { heartbeats: 1, bytesIn: 100, bytesOut: 24 },
      agentId,
    })),
  }) satisfies UsageBatch;

const apply = (store: UsageStore, batch: UsageBatch) =>
  store.update(batch.key, (stored) => applyUsage(stored, batch));

/** A tenant's hours, changed over the one read, never losing a racing writer's counts. */
export const usageContract = contract<UsageStore>("the usage store", (the) => {
  it("keeps each tenant's hours apart and reads a range of them by hour, its end left out", async () => {
    const store = the.subject;
    const key = (hour: number) => ({ tenant: the.tenant, hour });
    await apply(store, heartbeats(key(HOUR), "shard-0", "pump-1", 10, 3));
    await apply(store, heartbeats(key(HOUR + 2), "shard-0", "pump-2", 20, 1));
    await apply(store, heartbeats(key(HOUR + 5), "shard-0", "pump-1", 30, 1));
    await apply(store, heartbeats({ tenant: `${the.tenant}-other`, hour: HOUR }, "shard-0", "pump-9", 40, 7));
    const read = await store.read(the.tenant, HOUR, HOUR + 5);
    expect(read.map((hour) => [hour.hour, hour.counts, estimateAgents(hour.agentsSeen)])).toEqual([
      [
        HOUR,
        {
          heartbeats: 3,
          acknowledgements: 0,
          operations: 0,
          bytesIn: 300,
          bytesOut: 72,
          downloads: 0,
          downloadBytes: 0,
          uploads: 0,
          uploadBytes: 0,
        },
        1,
      ],
      [
        HOUR + 2,
        {
          heartbeats: 1,
          acknowledgements: 0,
          operations: 0,
          bytesIn: 100,
          bytesOut: 24,
          downloads: 0,
          downloadBytes: 0,
          uploads: 0,
          uploadBytes: 0,
        },
        1,
      ],
    ]);
    expect(read[0]).toMatchObject({ tenant: the.tenant, positions: { "shard-0": "12" } });
    expect(await store.read(the.tenant, HOUR + 6, HOUR + 6)).toEqual([]);
    expect(await store.read(`${the.tenant}-third`, HOUR, HOUR + 6)).toEqual([]);
  });

  it("loses no count when shards race on one hour, and counts a batch delivered again, however split, once", async () => {
    const store = the.subject;
    const key = { tenant: the.tenant, hour: HOUR };
    await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        apply(store, heartbeats(key, `shard-${index}`, `pump-${index}`, 100, 5)),
      ),
    );
    await apply(store, heartbeats(key, "shard-0", "pump-0", 100, 5));
    await apply(store, heartbeats(key, "shard-1", "pump-1", 102, 6));
    const [hour] = await store.read(the.tenant, HOUR, HOUR + 1);
    expect(hour?.counts.heartbeats).toBe(8 * 5 + 3);
    expect(hour && estimateAgents(hour.agentsSeen)).toBe(8);
    expect(hour?.positions).toMatchObject({ "shard-0": "104", "shard-1": "107", "shard-7": "104" });
  });

  it("keeps a tenant's first snapshot of a day, and reads a range of days by day, its end left out", async () => {
    const store = the.subject;
    const snapshot = (tenant: string, day: number, bytes: number): StoredSnapshot => ({
      tenant,
      day,
      takenAt: day * 86_400_000 + 60_000,
      stored: {
        manifests: { count: 2, bytes },
        flowVersions: { count: 5, bytes: 3_000 },
        assets: { count: 1, bytes: 6 * 1024 ** 3 },
        debugBundles: { count: 0, bytes: 0 },
        archive: { bytes: 123_456_789 },
      },
      archiveDays: { "2026-11-28": 100_000_000, "2026-11-29": 23_456_789 },
    });
    const DAY = Math.floor(HOUR / 24);
    // The hours beside the days are not days.
    await apply(store, heartbeats({ tenant: the.tenant, hour: HOUR }, "shard-0", "pump-1", 1, 1));
    expect(await store.keepStored(snapshot(the.tenant, DAY, 100))).toBe(true);
    expect(await store.keepStored(snapshot(the.tenant, DAY, 999))).toBe(false);
    expect(await store.keepStored(snapshot(the.tenant, DAY + 2, 200))).toBe(true);
    expect(await store.keepStored(snapshot(the.tenant, DAY + 3, 300))).toBe(true);
    expect(await store.keepStored(snapshot(`${the.tenant}-other`, DAY, 400))).toBe(true);
    expect(await store.readStored(the.tenant, DAY, DAY + 3)).toEqual([
      snapshot(the.tenant, DAY, 100),
      snapshot(the.tenant, DAY + 2, 200),
    ]);
    expect(await store.readStored(the.tenant, DAY + 3, DAY + 3)).toEqual([]);
    expect(await store.readStored(`${the.tenant}-third`, 0, DAY + 10)).toEqual([]);
    expect(await store.read(the.tenant, HOUR, HOUR + 1)).toHaveLength(1);
  });

  it("remembers tenants for the daily snapshots, forgetting one only when none remembered it since", async () => {
    const store = the.subject;
    const kept = `${the.tenant}-kept`;
    const dropped = `${the.tenant}-dropped`;
    const mine = async () =>
      (await store.rememberedTenants()).filter((tenant) => tenant.startsWith(`${the.tenant}-`)).sort();
    await store.rememberTenant(kept, 1_000);
    await store.rememberTenant(dropped, 1_000);
    await store.rememberTenant(kept, 1_000);
    expect(await mine()).toEqual([dropped, kept]);
    // A snapshot that began at 2,000 and found nothing stored drops a tenant remembered before it began...
    await store.forgetTenant(dropped, 2_000);
    // ...but not one remembered since, as an upload racing the snapshot's reading is.
    await store.rememberTenant(kept, 3_000);
    await store.forgetTenant(kept, 2_000);
    await store.forgetTenant(`${the.tenant}-never`, 2_000);
    expect(await mine()).toEqual([kept]);
  });
});

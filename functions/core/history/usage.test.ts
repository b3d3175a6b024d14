import { describe, expect, it } from "vitest";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryUsage } from "../../adapters/memory/usage.js";
import { BeaconError } from "../errors.js";
import type {
  AckEvent,
  BeaconEvent,
  DownloadEvent,
  HeartbeatEvent,
  OperationEvent,
  UploadEvent,
} from "../events/model.js";
import type { StreamRecord } from "../events/ports.js";
import type { Principal } from "../identity/principal.js";
import { makeUsageApi } from "./console-usage.js";
import { makeUsageConsumer } from "./consumer.js";
import { emptySketch } from "./sketch.js";
import { HOUR_MS, type UsageCounts, usageBatchesOf, usageHoursOf } from "./usage.js";

const H0 = Date.UTC(2026, 10, 30, 7);
let ids = 0;

const heartbeat = (tenant: string, agentId: string, at: number): HeartbeatEvent => ({
  type: "heartbeat",
  version: 1,
  eventId: `hb-${++ids}`,
  tenant,
  agentId,
  at,
  bytesIn: 500,
  bytesOut: 26,
  firstSight: false,
  operationsSent: [],
});

const ack = (tenant: string, agentId: string, at: number): AckEvent => ({
  type: "ack",
  version: 1,
  eventId: `ack-${++ids}`,
  tenant,
  agentId,
  at,
  operationId: "op-1~pump-1",
  state: "FULLY_APPLIED",
  matched: true,
  bytesIn: 200,
  bytesOut: 2,
});

const operation = (tenant: string, at: number, from?: OperationEvent["from"]): OperationEvent => ({
  type: "operation",
  version: 1,
  eventId: `op-${++ids}`,
  tenant,
  agentId: "pump-1",
  at,
  operationId: "op-1~pump-1",
  operation: "DESCRIBE",
  ...(from === undefined ? {} : { from }),
  state: from === undefined ? "queued" : "delivered",
});

const download = (tenant: string, agentId: string, at: number): DownloadEvent => ({
  type: "download",
  version: 1,
  eventId: `dl-${++ids}`,
  tenant,
  agentId,
  at,
  what: "asset",
  bytesOut: 1_000,
});

const upload = (tenant: string, agentId: string, at: number): UploadEvent => ({
  type: "upload",
  version: 1,
  eventId: `up-${++ids}`,
  tenant,
  agentId,
  at,
  what: "debugBundle",
  bytesIn: 4_000,
});

/** Records of one shard from `first` on, their positions growing in length (1, 8, 15): compared as numbers. */
const onShard = (shard: string, events: BeaconEvent[], first = 1): StreamRecord[] =>
  events.map((event, index) => ({ shard, position: String(first + index * 7), event }));

/**
 * Two tenants' hour and the next: heartbeats of three agents, acks, an operation created and delivered, and an
 * asset downloaded twice by an agent that never heartbeat in the range; in the next, a debug bundle uploaded by an
 * agent that heartbeat in the first hour alone.
 */
const run = (): BeaconEvent[] => [
  heartbeat("acme", "pump-1", H0 + 1_000),
  download("acme", "pump-9", H0 + 1_500),
  heartbeat("acme", "pump-2", H0 + 2_000),
  heartbeat("globex", "press-1", H0 + 3_000),
  operation("acme", H0 + 4_000),
  operation("acme", H0 + 5_000, "queued"),
  ack("acme", "pump-1", H0 + 6_000),
  download("acme", "pump-9", H0 + 7_000),
  heartbeat("acme", "pump-1", H0 + 61_000),
  heartbeat("acme", "pump-3", H0 + HOUR_MS + 1_000),
  ack("globex", "press-1", H0 + HOUR_MS + 2_000),
  upload("acme", "pump-2", H0 + HOUR_MS + 3_000),
];

const admin: Principal = { tenant: "acme", role: "admin", subject: "a" };

function subject() {
  const usage = new MemoryUsage();
  const clock = new ManualClock(H0 + 2 * HOUR_MS);
  return { usage, clock, consumer: makeUsageConsumer(usage), api: makeUsageApi({ usage, clock }) };
}

describe("the usage meter", () => {
  it("groups a batch by tenant and hour: one write each however many events, an operation once, when created", () => {
    const batches = usageBatchesOf(onShard("shard-0", run()));
    expect(
      batches.map(({ key, contributions }) => [key.tenant, key.hour * HOUR_MS, contributions.length]),
    ).toEqual([
      ["acme", H0, 7],
      ["globex", H0, 1],
      ["acme", H0 + HOUR_MS, 2],
      ["globex", H0 + HOUR_MS, 1],
    ]);
  });

  it("counts heartbeats, acknowledgements, operations created, downloads, uploads, their bytes and distinct agents per hour", async () => {
    const { consumer, api } = subject();
    await consumer.consume(onShard("shard-0", run()));
    const { body } = await api.get(admin, { from: H0, to: H0 + 2 * HOUR_MS });
    expect(body).toEqual({
      from: new Date(H0).toISOString(),
      to: new Date(H0 + 2 * HOUR_MS).toISOString(),
      hours: [
        {
          hour: new Date(H0).toISOString(),
          activeAgents: 2,
          heartbeats: 3,
          acknowledgements: 1,
          operations: 1,
          bytesIn: 3 * 500 + 200,
          bytesOut: 3 * 26 + 2,
          downloads: 2,
          downloadBytes: 2_000,
          uploads: 0,
          uploadBytes: 0,
        },
        {
          hour: new Date(H0 + HOUR_MS).toISOString(),
          activeAgents: 1,
          heartbeats: 1,
          acknowledgements: 0,
          operations: 0,
          bytesIn: 500,
          bytesOut: 26,
          downloads: 0,
          downloadBytes: 0,
          uploads: 1,
          uploadBytes: 4_000,
        },
      ],
      // pump-1 and pump-2 in the first hour, pump-3 in the second: three agents, not the hours' sum over again;
      // pump-9 only downloaded, and pump-2 only uploaded in the second hour, which are no sign of life.
      totals: {
        activeAgents: 3,
        heartbeats: 4,
        acknowledgements: 1,
        operations: 1,
        bytesIn: 2200,
        bytesOut: 106,
        downloads: 2,
        downloadBytes: 2_000,
        uploads: 1,
        uploadBytes: 4_000,
      },
      // No snapshot of what the tenant stores was taken in the range.
      storedDays: [],
    });
  });

  it("counts a batch delivered again, whole or split otherwise, once", async () => {
    const records = [...onShard("shard-0", run().slice(0, 7)), ...onShard("shard-1", run().slice(7), 1e12)];
    const once = subject();
    await once.consumer.consume(records);

    const again = subject();
    const shard0 = records.filter((record) => record.shard === "shard-0");
    const shard1 = records.filter((record) => record.shard === "shard-1");
    await again.consumer.consume([...shard0.slice(0, 3), ...shard1.slice(0, 2)]);
    await again.consumer.consume(shard0.slice(0, 2));
    await Promise.all([again.consumer.consume(shard0.slice(1)), again.consumer.consume(shard1.slice(0, -1))]);
    const writes = again.usage.writes;
    await again.consumer.consume(records);
    expect(again.usage.writes).toBe(writes + 1);
    await again.consumer.consume(records);
    expect(again.usage.writes).toBe(writes + 1);

    const range = { from: H0, to: H0 + 2 * HOUR_MS };
    expect((await again.api.get(admin, range)).body).toEqual((await once.api.get(admin, range)).body);
  });

  it("counts no bytes for events put on the stream before they carried sizes", () => {
    const { bytesIn, bytesOut, ...unsized } = heartbeat("acme", "pump-1", H0);
    const [batch] = usageBatchesOf(onShard("shard-0", [unsized]));
    expect(batch?.contributions[0]?.counts).toEqual({ heartbeats: 1, bytesIn: 0, bytesOut: 0 });
  });

  it("answers an hour stored before the download and upload counters existed with none downloaded or uploaded", async () => {
    const { usage, api } = subject();
    const counts = { heartbeats: 2, acknowledgements: 0, operations: 0, bytesIn: 10, bytesOut: 4 };
    const hour = H0 / HOUR_MS;
    await usage.update({ tenant: "acme", hour }, () => ({
      tenant: "acme",
      hour,
      counts: counts as UsageCounts,
      agentsSeen: emptySketch(),
      positions: {},
    }));
    const { body } = await api.get(admin, { from: H0, to: H0 + HOUR_MS });
    expect(body).toMatchObject({
      hours: [
        {
          hour: new Date(H0).toISOString(),
          activeAgents: 0,
          ...counts,
          downloads: 0,
          downloadBytes: 0,
          uploads: 0,
          uploadBytes: 0,
        },
      ],
      totals: { heartbeats: 2, downloads: 0, downloadBytes: 0, uploads: 0, uploadBytes: 0 },
    });
  });

  it("answers only the caller's tenant, to admins only", async () => {
    const { consumer, api } = subject();
    await consumer.consume(onShard("shard-0", run()));
    const { body } = await api.get({ ...admin, tenant: "globex" }, { from: H0, to: H0 + 2 * HOUR_MS });
    expect(body).toMatchObject({
      totals: {
        activeAgents: 1,
        heartbeats: 1,
        acknowledgements: 1,
        operations: 0,
        bytesIn: 700,
        bytesOut: 28,
        downloads: 0,
        downloadBytes: 0,
        uploads: 0,
        uploadBytes: 0,
      },
    });
    await expect(api.get({ ...admin, role: "operator" }, {})).rejects.toMatchObject({ code: "forbidden" });
  });
});

describe("a usage range", () => {
  const now = H0 + 30 * 60_000;

  it("is whole hours, the day before now by default, its last hour included once it has begun", () => {
    expect(usageHoursOf({}, now)).toEqual({ fromHour: H0 / HOUR_MS - 23, toHour: H0 / HOUR_MS + 1 });
    expect(usageHoursOf({ from: H0 + 1, to: H0 + HOUR_MS }, now)).toEqual({
      fromHour: H0 / HOUR_MS,
      toHour: H0 / HOUR_MS + 1,
    });
  });

  it("refuses an empty, reversed, unreadable or longer than 31 days range", () => {
    for (const request of [
      { from: H0, to: H0 },
      { from: H0 + 1, to: H0 },
      { from: Number.NaN },
      { from: -1, to: H0 },
      { from: H0 - 31 * 24 * HOUR_MS - 1, to: H0 },
    ]) {
      expect(() => usageHoursOf(request, now), JSON.stringify(request)).toThrow(BeaconError);
    }
    expect(usageHoursOf({ from: H0 - 31 * 24 * HOUR_MS, to: H0 }, now).fromHour).toBe(H0 / HOUR_MS - 744);
  });
});

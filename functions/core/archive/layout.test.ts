import { describe, expect, it } from "vitest";
import type { HeartbeatEvent } from "../events/model.js";
import type { StreamRecord } from "../events/ports.js";
import {
  archiveObjectsOf,
  jsonLinesOf,
  partitionOf,
  partitionPath,
  partitionPathsOf,
  spanOfObject,
} from "./layout.js";

const HOUR = 3_600_000;
/** 2026-11-24T23:30:00Z: the next hour is the next day. */
const LATE = Date.UTC(2026, 10, 24, 23, 30);

const heartbeat = (tenant: string, agentId: string, at: number): HeartbeatEvent => ({
  type: "heartbeat",
  version: 1,
  eventId: `${tenant}-${agentId}-${at}`,
  tenant,
  agentId,
  at,
  firstSight: false,
  operationsSent: [],
});

const recordsOf = (events: HeartbeatEvent[], shard = "shardId-000000000000"): StreamRecord[] =>
  events.map((event, index) => ({ shard, position: String(1000 + index), event }));

describe("partitionOf", () => {
  it("is the event's tenant and the UTC day and hour it was recorded in", () => {
    expect(partitionOf(heartbeat("acme", "a", LATE))).toEqual({
      tenant: "acme",
      day: "2026-11-24",
      hour: "23",
    });
    expect(partitionPath(partitionOf(heartbeat("acme", "a", LATE + HOUR)))).toBe(
      "events/tenant=acme/day=2026-11-25/hour=00/",
    );
  });
});

describe("archiveObjectsOf", () => {
  const batch = recordsOf([
    heartbeat("acme", "a", LATE),
    heartbeat("globex", "g", LATE),
    heartbeat("acme", "b", LATE + 1),
    heartbeat("acme", "a", LATE + HOUR),
    heartbeat("acme", "c", LATE + 2),
  ]);

  it("makes one object per tenant and hour, named by the shard and its first and last record's positions", () => {
    expect(archiveObjectsOf(batch).map(({ key, firstIndex }) => ({ key, firstIndex }))).toEqual([
      {
        key: "events/tenant=acme/day=2026-11-24/hour=23/shardId-000000000000-1000-1004.json.gz",
        firstIndex: 0,
      },
      {
        key: "events/tenant=globex/day=2026-11-24/hour=23/shardId-000000000000-1001-1001.json.gz",
        firstIndex: 1,
      },
      {
        key: "events/tenant=acme/day=2026-11-25/hour=00/shardId-000000000000-1003-1003.json.gz",
        firstIndex: 3,
      },
    ]);
  });

  it("keeps each object's events in their stream order, and every event in exactly one object", () => {
    const objects = archiveObjectsOf(batch);
    expect(objects[0]?.events.map((event) => event.eventId)).toEqual([
      batch[0]?.event.eventId,
      batch[2]?.event.eventId,
      batch[4]?.event.eventId,
    ]);
    const archived = objects.flatMap((object) => object.events.map((event) => event.eventId));
    expect(archived.sort()).toEqual(batch.map((record) => record.event.eventId).sort());
  });

  it("names and fills the objects of a batch delivered again exactly as the first time", () => {
    expect(archiveObjectsOf(structuredClone(batch))).toEqual(archiveObjectsOf(batch));
  });

  it("fills a key written again by a batch split differently with the same events: nothing is replaced by less", () => {
    const first = new Map(archiveObjectsOf(batch).map((object) => [object.key, object.events]));
    for (const split of [batch.slice(2), batch.slice(0, 3), batch.slice(1, 4)]) {
      for (const object of archiveObjectsOf(split)) {
        const before = first.get(object.key);
        if (before) expect(object.events).toEqual(before);
      }
    }
    // The split from the third record names acme's hour 23 otherwise: those events are archived twice.
    expect(first.has(archiveObjectsOf(batch.slice(2))[0]?.key as string)).toBe(false);
  });

  it("keeps the shards of one partition apart", () => {
    const [a, b] = [
      recordsOf([heartbeat("acme", "a", LATE)], "shardId-000000000000"),
      recordsOf([heartbeat("acme", "b", LATE)], "shardId-000000000001"),
    ].map((records) => archiveObjectsOf(records)[0]?.key);
    expect(a).not.toBe(b);
  });
});

describe("spanOfObject", () => {
  it("reads back the shard and the positions an object was named by", () => {
    const records = recordsOf(
      [heartbeat("acme", "a", LATE), heartbeat("acme", "b", LATE)],
      "shardId-000000000007",
    );
    const [object] = archiveObjectsOf(records);
    expect(spanOfObject(object?.key ?? "")).toEqual({
      shard: "shardId-000000000007",
      first: "1000",
      last: "1001",
    });
  });

  it("names no span for a key the archive does not write", () => {
    expect(spanOfObject("events/tenant=acme/day=2026-11-24/hour=23/notes.txt")).toBeUndefined();
  });
});

describe("jsonLinesOf", () => {
  it("writes each event as one line of JSON, exactly as on the stream", () => {
    const events = [heartbeat("acme", "a", LATE), heartbeat("acme", "b", LATE)];
    const lines = jsonLinesOf(events).split("\n");
    expect(lines.at(-1)).toBe("");
    expect(lines.slice(0, -1).map((line) => JSON.parse(line))).toEqual(events);
  });
});

describe("partitionPathsOf", () => {
  it("names one folder per hour the window touches, across days, and the tenant's whole archive without one", () => {
    expect(partitionPathsOf("acme", LATE - HOUR, LATE + HOUR)).toEqual([
      "events/tenant=acme/day=2026-11-24/hour=22/",
      "events/tenant=acme/day=2026-11-24/hour=23/",
      "events/tenant=acme/day=2026-11-25/hour=00/",
    ]);
    expect(partitionPathsOf("acme", LATE, LATE + 1)).toEqual(["events/tenant=acme/day=2026-11-24/hour=23/"]);
    expect(partitionPathsOf("acme")).toEqual(["events/tenant=acme/"]);
  });
});

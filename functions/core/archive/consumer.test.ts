import { describe, expect, it } from "vitest";
import { PartlyConsumed } from "../events/consumption.js";
import type { HeartbeatEvent } from "../events/model.js";
import type { StreamRecord } from "../events/ports.js";
import { makeArchiveConsumer } from "./consumer.js";
import type { ArchiveStore } from "./ports.js";

/** Objects by key; writes to keys of a refused tenant fail, as a write S3 does not take. */
class MemoryArchive implements ArchiveStore {
  readonly objects = new Map<string, string>();
  constructor(private readonly refusedTenant?: string) {}

  async put(key: string, text: string): Promise<void> {
    if (this.refusedTenant && key.includes(`tenant=${this.refusedTenant}/`)) throw new Error("SlowDown");
    this.objects.set(key, text);
  }
}

const AT = Date.UTC(2026, 10, 24, 12);
const recordOf = (tenant: string, index: number): StreamRecord => {
  const event: HeartbeatEvent = {
    type: "heartbeat",
    version: 1,
    eventId: `event-${index}`,
    tenant,
    agentId: `agent-${index}`,
    at: AT,
    firstSight: false,
    operationsSent: [],
  };
  return { shard: "shardId-000000000000", position: String(100 + index), event };
};
const batch = ["acme", "acme", "globex", "acme", "initech", "globex"].map(recordOf);
const archivedIds = (archive: MemoryArchive) =>
  [...archive.objects.values()]
    .flatMap((text) => text.trimEnd().split("\n"))
    .map((line) => (JSON.parse(line) as HeartbeatEvent).eventId)
    .sort();

describe("the archive consumer", () => {
  it("writes every event once, and the same objects again when a batch is delivered again", async () => {
    const archive = new MemoryArchive();
    const consumer = makeArchiveConsumer(archive);
    await consumer.consume(batch);
    const written = new Map(archive.objects);
    await consumer.consume(batch);
    expect(archive.objects).toEqual(written);
    expect(archivedIds(archive)).toEqual(batch.map((record) => record.event.eventId).sort());
  });

  it("says it took the records before the first record of the first object it could not write", async () => {
    const archive = new MemoryArchive("globex");
    const failure = await makeArchiveConsumer(archive)
      .consume(batch)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PartlyConsumed);
    expect((failure as PartlyConsumed).taken).toBe(2);
    // What it took is archived: the first two records are acme's, whose object was written.
    expect(archivedIds(archive)).toEqual(expect.arrayContaining(["event-0", "event-1"]));
  });
});

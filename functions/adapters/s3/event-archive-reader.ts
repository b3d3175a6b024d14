import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { partitionOf, partitionPath, spanOfObject } from "../../core/archive/layout.js";
import type { ArchiveReader } from "../../core/archive/ports.js";
import type { BeaconEvent } from "../../core/events/model.js";
import type { KeptEvents } from "../../core/events/ports.js";
import type { ShardSpan } from "../../core/events/positions.js";
import type { ListedObject, ObjectCalls } from "./object-calls.js";

const gunzipAsync = promisify(gunzip);

/**
 * How far S3's clock, which dates the archive's objects, may be behind Beacon's, which dates its events: an
 * object written after an event was recorded is never taken for older than the event by more than this.
 */
const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * The event archive's objects read back, one at a time: gzip JSON lines, as S3EventArchive writes them. It is
 * also what the stream carried before: every record the consumers took is in one of its objects, under the
 * folder of its event's tenant and hour, whatever its shard.
 */
export class S3EventArchiveReader implements ArchiveReader, KeptEvents {
  constructor(private readonly objects: ObjectCalls) {}

  async *eventsUnder(prefix: string): AsyncIterable<BeaconEvent> {
    for await (const key of this.keysUnder(prefix, 0)) yield* await this.eventsOf(key);
  }

  /**
   * Reads, in each sought event's folder, only the objects written since the earliest of them was recorded:
   * a record of an event is archived after the event was, so older objects cannot hold one.
   */
  async keptAmong(events: BeaconEvent[]): Promise<Map<string, ShardSpan[]>> {
    const sought = new Map<string, { ids: Set<string>; since: number }>();
    for (const event of events) {
      const folder = partitionPath(partitionOf(event));
      const entry = sought.get(folder) ?? { ids: new Set<string>(), since: event.at };
      entry.ids.add(event.eventId);
      entry.since = Math.min(entry.since, event.at);
      sought.set(folder, entry);
    }
    const kept = new Map<string, ShardSpan[]>();
    await Promise.all(
      [...sought].map(async ([folder, { ids, since }]) => {
        for await (const key of this.keysUnder(folder, since - CLOCK_SKEW_MS)) {
          const span = spanOfObject(key);
          if (span === undefined) continue;
          for (const { eventId } of await this.eventsOf(key))
            if (ids.has(eventId)) kept.set(eventId, [...(kept.get(eventId) ?? []), span]);
        }
      }),
    );
    return kept;
  }

  /** One LIST request per 1,000 objects. */
  async bytesUnder(prefix: string): Promise<number> {
    let bytes = 0;
    for await (const { size } of this.objectsUnder(prefix)) bytes += size;
    return bytes;
  }

  /** One LIST request per 1,000 folders. */
  async foldersUnder(prefix: string): Promise<string[]> {
    const folders: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.objects.list(prefix, { delimiter: "/", continuationToken: token });
      folders.push(...page.folders);
      token = page.next;
    } while (token);
    return folders;
  }

  private async *keysUnder(prefix: string, modifiedSince: number): AsyncIterable<string> {
    for await (const { key, lastModified } of this.objectsUnder(prefix))
      if (lastModified.getTime() >= modifiedSince) yield key;
  }

  private async *objectsUnder(prefix: string): AsyncIterable<ListedObject> {
    let token: string | undefined;
    do {
      const page = await this.objects.list(prefix, { continuationToken: token });
      yield* page.objects;
      token = page.next;
    } while (token);
  }

  private async eventsOf(key: string): Promise<BeaconEvent[]> {
    const text = (await gunzipAsync(await this.objects.get(key))).toString();
    return text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as BeaconEvent);
  }
}

import { gunzipSync, gzipSync } from "node:zlib";
import type { ArchiveReader, ArchiveStore } from "../../core/archive/ports.js";
import type { BeaconEvent } from "../../core/events/model.js";

/** The archive's objects by key, compressed as the bucket holds them, so that their bytes are the bucket's. */
export class MemoryEventArchive implements ArchiveStore, ArchiveReader {
  readonly objects = new Map<string, Uint8Array>();

  async put(key: string, text: string): Promise<void> {
    this.objects.set(key, gzipSync(text));
  }

  async *eventsUnder(prefix: string): AsyncIterable<BeaconEvent> {
    for (const key of [...this.objects.keys()].filter((key) => key.startsWith(prefix)).sort())
      for (const line of gunzipSync(this.objects.get(key) as Uint8Array)
        .toString()
        .split("\n"))
        if (line !== "") yield JSON.parse(line) as BeaconEvent;
  }

  async bytesUnder(prefix: string): Promise<number> {
    let bytes = 0;
    for (const [key, body] of this.objects) if (key.startsWith(prefix)) bytes += body.length;
    return bytes;
  }

  async foldersUnder(prefix: string): Promise<string[]> {
    const folders = new Set<string>();
    for (const key of this.objects.keys()) {
      if (!key.startsWith(prefix)) continue;
      const end = key.indexOf("/", prefix.length);
      if (end >= 0) folders.add(key.slice(0, end + 1));
    }
    return [...folders].sort();
  }
}

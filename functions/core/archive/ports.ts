import type { BeaconEvent } from "../events/model.js";

/** The archive's bucket: objects are written whole, and writing a key again replaces its object. */
export interface ArchiveStore {
  /** Stores the text, compressed, under `key`; resolves once it is durable. */
  put(key: string, text: string): Promise<void>;
}

/** The archive read back: what the integrity report counts. */
export interface ArchiveReader {
  /** Every event of every object whose key starts with `prefix`, in the order of its lines. */
  eventsUnder(prefix: string): AsyncIterable<BeaconEvent>;
}

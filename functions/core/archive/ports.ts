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
  /** The bytes the objects whose key starts with `prefix` hold in the bucket, as a listing reports them. */
  bytesUnder(prefix: string): Promise<number>;
  /** The folders directly under `prefix` (a `/`-ended key part after it) that hold objects, in key order. */
  foldersUnder(prefix: string): Promise<string[]>;
}

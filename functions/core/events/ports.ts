import type { BeaconEvent } from "./model.js";

export interface EventSink {
  /** Resolves once every event is on the stream; rejects after bounded retries. */
  publish(events: BeaconEvent[]): Promise<void>;
}

/** One event as the stream delivered it: `position` orders it among the records of its `shard`. */
export interface StreamRecord {
  shard: string;
  position: string;
  event: BeaconEvent;
}

/**
 * Turns events read off the stream into something lasting (the archive, fleet history, deliveries).
 * The stream delivers at least once, and a batch delivered again may be split differently, so a
 * consumer must have the same effect however often a record reaches it.
 */
export interface EventConsumer {
  readonly name: string;
  consume(records: StreamRecord[]): Promise<void>;
}

/**
 * Events written in the same transaction as the state change they record, kept until they are known to be
 * on the stream: an accepted change and its event cannot part, even when the stream is down or the function
 * dies between the two. A relay puts the ones left behind on the stream.
 */
export interface EventOutbox {
  /** Staged events of every tenant written before `before` (epoch ms), oldest first, at most `limit`. */
  pending(before: number, limit: number): Promise<BeaconEvent[]>;
  /** Forgets staged events once they are on the stream; events never staged are ignored. */
  clear(events: BeaconEvent[]): Promise<void>;
}

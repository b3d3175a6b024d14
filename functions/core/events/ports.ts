import type { BeaconEvent } from "./model.js";
import type { ShardSpan } from "./positions.js";

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
 * dies between the two. A relay puts the ones left behind on the stream. Beside them, apart, it keeps the
 * events the buffer could not hold (the cache down too, or the buffer full), for the held events' relay.
 */
export interface EventOutbox {
  /** Staged events of every tenant written before `before` (epoch ms), oldest first, at most `limit`. */
  pending(before: number, limit: number): Promise<BeaconEvent[]>;
  /** Keeps events the buffer could not hold, all of them or none (it throws), until the stream takes them. */
  keep(events: BeaconEvent[]): Promise<void>;
  /** The events kept for want of the buffer, every tenant's, oldest first, at most `limit`. */
  kept(limit: number): Promise<BeaconEvent[]>;
  /** Forgets staged and kept events once they are on the stream; events neither staged nor kept are ignored. */
  clear(events: BeaconEvent[]): Promise<void>;
}

/** The event buffer's bounds: most events it holds, and most of one tenant's, a share of the first. */
export interface EventBufferBounds {
  maxEvents: number;
  maxEventsPerTenant: number;
}

/**
 * Events a publish could not put on the stream and that nothing else keeps (heartbeats, acks, notices), held
 * in order until the stream takes them again. Bounded twice: past its bound, or past a tenant's share of it,
 * events are refused, so that one tenant's flood never takes another's room.
 */
export interface EventBuffer {
  /** Appends what fits, in order; answers the events refused for want of room (the tenant's or the buffer's). */
  hold(events: BeaconEvent[]): Promise<{ refused: BeaconEvent[] }>;
  /** The oldest held events, at most `limit`, left in place. */
  peek(limit: number): Promise<BeaconEvent[]>;
  /** Forgets the oldest held events, once the stream has them: `events`, the ones a peek answered, in order. */
  drop(events: BeaconEvent[]): Promise<void>;
}

/**
 * What the stream carried before: something that keeps every record the consumers took (the archive). A
 * shard's batches reach the consumers one at a time, in order, each taken whole before the next is given,
 * so an earlier record of an event is kept by the time a later one of the same shard arrives.
 */
export interface KeptEvents {
  /**
   * Of `events`, the eventIds some record taken carried, each with the spans of records that hold it: a span
   * of the shard that covers a record's own position may be that record, taken already and delivered again.
   * The stream took each record after its event's `at`.
   */
  keptAmong(events: BeaconEvent[]): Promise<Map<string, ShardSpan[]>>;
}

import { type BeaconEvent, isStagedEvent, resentOf } from "./model.js";
import type { EventBuffer, EventOutbox, EventSink, KeptEvents } from "./ports.js";

/**
 * Puts a sweep's events on the stream, when it has any; what the stream answered instead, for the sweep's
 * outcome to report: the changes they record stand either way.
 */
export async function publishReportingFailure(sink: EventSink, events: BeaconEvent[]): Promise<unknown> {
  if (events.length === 0) return undefined;
  try {
    await sink.publish(events);
    return undefined;
  } catch (error) {
    return error;
  }
}

/** A publish that put some of its events, or none: `unpublished` are the ones the stream does not have. */
export class PublishFailure extends Error {
  constructor(
    message: string,
    readonly unpublished: BeaconEvent[],
  ) {
    super(message);
    this.name = "PublishFailure";
  }
}

/**
 * A publish the stream failed whose events are all kept for a relay: the staged ones in the outbox, where their
 * writers put them, and the others in the buffer or the outbox. It fails so that the staged events' outbox
 * entries stay; nothing of it is lost.
 */
export class EventsKeptForRelay extends PublishFailure {
  constructor(
    readonly streamError: unknown,
    unpublished: BeaconEvent[],
  ) {
    super(
      `the stream did not take ${unpublished.length} events, each kept for a relay (${String(streamError)})`,
      unpublished,
    );
    this.name = "EventsKeptForRelay";
  }
}

/** A publish still under way when the request had to be answered; it goes on, and may yet put the events. */
export class PublishNotAwaited extends Error {
  constructor() {
    super("the stream had not taken the events when the request had to be answered");
    this.name = "PublishNotAwaited";
  }
}

/**
 * Publishes the events, waiting until `answerBy` (epoch ms) at most: a request whose change is saved is
 * answered in time however slowly the stream takes its events. What went wrong, if anything, is returned,
 * never thrown; the caller reports it, with the events, so that they can be put on the stream again.
 */
export async function publishBefore(
  sink: EventSink,
  events: BeaconEvent[],
  answerBy: number | undefined,
  now: number,
): Promise<unknown> {
  const published = sink.publish(events).then(
    () => undefined,
    (error: unknown) => error ?? new Error("publish failed"),
  );
  if (answerBy === undefined) return published;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<PublishNotAwaited>((resolve) => {
    timer = setTimeout(() => resolve(new PublishNotAwaited()), Math.max(0, answerBy - now));
  });
  try {
    return await Promise.race([published, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A sink that forgets staged events (the outbox's) once the stream has them. A clearance that fails costs a
 * duplicate later, when the relay puts the event on the stream again, never a loss: it is reported, not thrown.
 */
export function clearingStaged(
  sink: EventSink,
  outbox: EventOutbox,
  reportClearFailure: (error: unknown, events: BeaconEvent[]) => void,
): EventSink {
  return {
    async publish(events: BeaconEvent[]): Promise<void> {
      await sink.publish(events);
      // A steady heartbeat's publish stages nothing: the outbox is not asked at all.
      const staged = events.filter(isStagedEvent);
      if (staged.length === 0) return;
      await outbox.clear(staged).catch((error: unknown) => reportClearFailure(error, staged));
    },
  };
}

export interface RelayOutcome {
  relayed: number;
  /** More were left than one run takes. */
  more: boolean;
}

/**
 * Puts on the stream the staged events written before `before` that their writers did not (the stream was
 * down, the function died or had to answer first), oldest first, and forgets them; at most `limit` a run.
 * `before` must leave every writer time to finish its own put, or the relay would duplicate what is under way.
 */
export async function relayStaged(
  outbox: EventOutbox,
  sink: EventSink,
  before: number,
  limit: number,
): Promise<RelayOutcome> {
  const pending = await outbox.pending(before, limit + 1);
  const relayed = pending.slice(0, limit);
  if (relayed.length === 0) return { relayed: 0, more: false };
  await sink.publish(relayed);
  await outbox.clear(relayed);
  return { relayed: relayed.length, more: pending.length > limit };
}

/** What became of the events a failed publish did not put on the stream. */
export interface UnpublishedEvents {
  /** In the buffer, for the relay. */
  held: number;
  /** In the outbox beside the staged events, for the relay: the buffer refused them or could not be reached. */
  heldInOutbox: number;
  /** In the outbox, written with their state change, for the outbox's relay. */
  staged: number;
  /** Kept nowhere: neither the buffer nor the outbox could take them. */
  lost: BeaconEvent[];
}

/**
 * A sink that, when the stream fails, holds the events nothing else keeps in the buffer and resolves as if
 * published; what the buffer refuses (full, the tenant's share of it full, or the cache unreachable) goes to the
 * outbox. Staged events stay in the outbox, so the publish still fails for them (their outbox entries must
 * stay), as EventsKeptForRelay. Whatever could be kept nowhere fails the publish with the stream's error,
 * reported as lost. A publish the stream takes
 * asks neither the buffer nor the outbox.
 */
export function holdingWhenDown(
  sink: EventSink,
  buffer: EventBuffer,
  outbox: EventOutbox,
  report: (outcome: UnpublishedEvents) => void,
): EventSink {
  return {
    async publish(events: BeaconEvent[]): Promise<void> {
      try {
        await sink.publish(events);
      } catch (error) {
        const unpublished = error instanceof PublishFailure ? error.unpublished : events;
        const staged = unpublished.filter(isStagedEvent).length;
        const waiting = unpublished.filter((event) => !isStagedEvent(event));
        const refused = await buffer.hold(waiting).then(
          (outcome) => outcome.refused,
          () => waiting,
        );
        const lost = await outbox.keep(refused).then(
          (): BeaconEvent[] => [],
          () => refused,
        );
        const heldInOutbox = refused.length - lost.length;
        report({ held: waiting.length - refused.length, heldInOutbox, staged, lost });
        if (lost.length > 0) throw error;
        if (staged > 0) throw new EventsKeptForRelay(error, unpublished);
      }
    },
  };
}

/** The next events the held events' relay puts on the stream, and where each of them waits now. */
export interface HeldBatch {
  /** In the order they go on the stream. */
  events: BeaconEvent[];
  fromBuffer: BeaconEvent[];
  fromOutbox: BeaconEvent[];
  /** It stopped at an event whose put may yet reach the stream: the rest waits for a later run. */
  unsettled: boolean;
}

/**
 * Merges the buffer's oldest events and the outbox's oldest kept events by time, each in its own order, into at
 * most `limit`: an agent's events that one fault sent to the buffer and another to the outbox go on the stream
 * in the order they happened. Reading each side's oldest `limit` is enough: the merge could only run past what
 * it read of a side by taking more than `limit` events. It stops at the first event whose put's outcome was
 * unknown (marked resent) recorded at or after `settledBefore`: that put may still reach the stream, or have
 * reached it and not be archived yet, and putting it again now would make a copy.
 */
export function nextHeldBatch(
  buffered: BeaconEvent[],
  kept: BeaconEvent[],
  limit: number,
  settledBefore: number,
): HeldBatch {
  const events: BeaconEvent[] = [];
  let fromBuffer = 0;
  let fromOutbox = 0;
  while (events.length < limit) {
    const nextBuffered = buffered[fromBuffer];
    const nextKept = kept[fromOutbox];
    const takeKept = nextKept !== undefined && (nextBuffered === undefined || nextKept.at < nextBuffered.at);
    const next = takeKept ? nextKept : nextBuffered;
    if (next === undefined) break;
    if (next.resent && next.at >= settledBefore)
      return heldBatch(events, buffered, fromBuffer, kept, fromOutbox, true);
    events.push(next);
    if (takeKept) fromOutbox += 1;
    else fromBuffer += 1;
  }
  return heldBatch(events, buffered, fromBuffer, kept, fromOutbox, false);
}

const heldBatch = (
  events: BeaconEvent[],
  buffered: BeaconEvent[],
  fromBuffer: number,
  kept: BeaconEvent[],
  fromOutbox: number,
  unsettled: boolean,
): HeldBatch => ({
  events,
  fromBuffer: buffered.slice(0, fromBuffer),
  fromOutbox: kept.slice(0, fromOutbox),
  unsettled,
});

/**
 * Puts the oldest held events, the buffer's and those kept in the outbox for want of it, on the stream, at most
 * `limit`, merged by time; forgets them once it has them. While the cache is unreachable it puts none, so that
 * an agent's events kept in the outbox never overtake its older ones in the buffer. Events whose put's outcome
 * was unknown wait until they were recorded before `settledBefore` (nextHeldBatch).
 */
export async function relayHeld(
  buffer: EventBuffer,
  outbox: EventOutbox,
  sink: EventSink,
  limit: number,
  settledBefore: number,
): Promise<RelayOutcome> {
  const [buffered, kept] = await Promise.all([buffer.peek(limit + 1), outbox.kept(limit + 1)]);
  const batch = nextHeldBatch(buffered, kept, limit, settledBefore);
  if (batch.events.length === 0) return { relayed: 0, more: false };
  await sink.publish(batch.events);
  await buffer.drop(batch.fromBuffer);
  await outbox.clear(batch.fromOutbox);
  return {
    relayed: batch.events.length,
    more:
      !batch.unsettled &&
      (buffered.length > batch.fromBuffer.length || kept.length > batch.fromOutbox.length),
  };
}

/**
 * A relay's sink: every event it puts is marked resent, as an earlier put of it (its writer's, whose outcome
 * was unknown, or a relay run's that died before it forgot the event) may be on the stream; and events the
 * stream carried already, as `kept` shows, are not put again, so that copies on the stream stay rare. The
 * consumers pass over what slips through (events/copies.ts).
 */
export function resending(sink: EventSink, kept: KeptEvents): EventSink {
  return {
    async publish(events: BeaconEvent[]): Promise<void> {
      if (events.length === 0) return;
      const carried = await kept.keptAmong(events);
      const unseen = events.filter((event) => !carried.has(event.eventId)).map(resentOf);
      if (unseen.length > 0) await sink.publish(unseen);
    },
  };
}

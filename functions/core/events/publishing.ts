import { type BeaconEvent, isStagedEvent, resentOf } from "./model.js";
import type { EventBuffer, EventOutbox, EventSink, KeptEvents } from "./ports.js";

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
  /** In the outbox, written with their state change, for the outbox's relay. */
  staged: number;
  /** Neither: the buffer refused them (full) or could not be reached. */
  lost: number;
}

/**
 * A sink that, when the stream fails, holds the events nothing else keeps in the buffer and resolves as if
 * published; staged events stay in the outbox, so the publish still fails for them (their outbox entries must
 * stay). Whatever could not be held fails the publish too, reported as lost.
 */
export function holdingWhenDown(
  sink: EventSink,
  buffer: EventBuffer,
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
          ({ refused }) => refused,
          () => waiting.length,
        );
        report({ held: waiting.length - refused, staged, lost: refused });
        if (staged > 0 || refused > 0) throw error;
      }
    },
  };
}

/** Puts the oldest held events on the stream, at most `limit`, and forgets them once it has them. */
export async function relayHeld(buffer: EventBuffer, sink: EventSink, limit: number): Promise<RelayOutcome> {
  const held = await buffer.peek(limit + 1);
  const relayed = held.slice(0, limit);
  if (relayed.length === 0) return { relayed: 0, more: false };
  await sink.publish(relayed);
  await buffer.drop(relayed.length);
  return { relayed: relayed.length, more: held.length > limit };
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

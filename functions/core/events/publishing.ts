import type { BeaconEvent } from "./model.js";
import type { EventOutbox, EventSink } from "./ports.js";

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
      await outbox.clear(events).catch((error: unknown) => reportClearFailure(error, events));
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

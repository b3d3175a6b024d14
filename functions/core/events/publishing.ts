import type { BeaconEvent } from "./model.js";
import type { EventSink } from "./ports.js";

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

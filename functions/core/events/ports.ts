import type { BeaconEvent } from "./model.js";

export interface EventSink {
  /** Resolves once every event is on the stream; rejects after bounded retries. */
  publish(events: BeaconEvent[]): Promise<void>;
}

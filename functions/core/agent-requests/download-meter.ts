import { downloadEvent } from "../events/download-event.js";
import type { DownloadEvent } from "../events/model.js";
import type { EventSink } from "../events/ports.js";
import { publishBefore } from "../events/publishing.js";
import type { AgentCredential } from "../identity/credentials.js";
import type { Clock, IdGenerator } from "../ports.js";

export interface DownloadMeterDependencies {
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
}

/** How a download's event fared: what the stream answered instead of taking it, and the event, to report. */
export interface MeteredDownload {
  streamError?: unknown;
  unpublished?: DownloadEvent[];
}

/**
 * Puts a download answered 200 on the stream, one event per download, for usage to count its bytes: the stream
 * consumer's exactly-once counting of its tenant's hour then holds for downloads as for heartbeats, for one put
 * (the sink holds it when the stream is down) and no DynamoDB request. Waits for the stream until `answerBy` at
 * most; a failure is returned, never thrown: the agent gets its bytes either way.
 */
export function makeDownloadMeter({ events, clock, ids }: DownloadMeterDependencies) {
  return async function meterDownload(
    credential: AgentCredential,
    what: Exclude<DownloadEvent["what"], "debugBundle">,
    bytesOut: number,
    answerBy: number | undefined,
  ): Promise<MeteredDownload> {
    const now = clock.now();
    const event = downloadEvent({
      eventId: ids.newId(),
      tenant: credential.tenant,
      ...(credential.kind === "agent" ? { agentId: credential.agentId } : {}),
      at: now,
      what,
      bytesOut,
    });
    const streamError = await publishBefore(events, [event], answerBy, now);
    return streamError === undefined ? {} : { streamError, unpublished: [event] };
  };
}

import type { IdGenerator } from "../ports.js";
import { downloadEvent } from "./download-event.js";
import type { DownloadEvent } from "./model.js";
import type { EventSink } from "./ports.js";

export interface LinkDownloadsDependencies {
  events: EventSink;
  ids: IdGenerator;
}

/**
 * Meters what an operator downloads through a link to the bucket the console API grants (an asset, a debug
 * bundle): the bucket sends the bytes, which Beacon never sees, so a download is counted when its link is granted,
 * at the object's size, on the stream before the link is handed out. The sink holds the event when the stream is
 * down; should it throw, the operator gets an error and no link, so no download goes uncounted.
 */
export function makeLinkDownloadMeter({ events, ids }: LinkDownloadsDependencies) {
  return async function meterLinkDownload(
    tenant: string,
    what: Exclude<DownloadEvent["what"], "flow">,
    bytes: number,
    at: number,
  ): Promise<void> {
    await events.publish([
      downloadEvent({ eventId: ids.newId(), tenant, at, what, bytesOut: bytes, link: true }),
    ]);
  };
}

export type LinkDownloadMeter = ReturnType<typeof makeLinkDownloadMeter>;

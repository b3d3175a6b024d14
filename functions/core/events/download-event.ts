import type { DownloadEvent } from "./model.js";

/** A download's event, for whichever way its bytes went: the agent API's answer or a link to the bucket. */
export const downloadEvent = (fields: Omit<DownloadEvent, "type" | "version">): DownloadEvent => ({
  type: "download",
  version: 1,
  ...fields,
});

import type { UploadEvent } from "./model.js";

/** An agent's upload's event, once Beacon stored its bytes. */
export const uploadEvent = (fields: Omit<UploadEvent, "type" | "version">): UploadEvent => ({
  type: "upload",
  version: 1,
  ...fields,
});

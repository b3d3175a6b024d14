/**
 * TRANSFER DEBUG: the operation that has an agent upload a debug bundle, which is done only once the bundle
 * it uploaded is stored.
 */
import type { OperationRecord } from "./model.js";

/** Where agents upload a bundle, below the agent ingress's base, one path per TRANSFER DEBUG operation. */
export const DEBUG_BUNDLE_UPLOAD_PATH = "/c2/debug-bundles";

export const isTransferDebug = (record: Pick<OperationRecord, "operation" | "operand">): boolean =>
  record.operation === "TRANSFER" && record.operand === "DEBUG";

/** The upload target a TRANSFER DEBUG operation sends its agent to. */
export const debugBundleTarget = (base: string, operationId: string): string =>
  `${base}${DEBUG_BUNDLE_UPLOAD_PATH}/${encodeURIComponent(operationId)}`;

/** Why an agent's applied acknowledgement of TRANSFER DEBUG does not make it done. */
export const NO_BUNDLE_REASON =
  "The agent acknowledged TRANSFER DEBUG as applied, but no debug bundle of it was stored";

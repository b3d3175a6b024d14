/**
 * TRANSFER DEBUG: the operation that has an agent upload a debug bundle, which is done only once the bundle
 * it uploaded is stored.
 */
import type { OperationRecord } from "./model.js";

export const isTransferDebug = (record: Pick<OperationRecord, "operation" | "operand">): boolean =>
  record.operation === "TRANSFER" && record.operand === "DEBUG";

/** Why an agent's applied acknowledgement of TRANSFER DEBUG does not make it done. */
export const NO_BUNDLE_REASON =
  "The agent acknowledged TRANSFER DEBUG as applied, but no debug bundle of it was stored";

import { type ClosedWindows, closedWindowsReason } from "./drafts.js";
import { isHeld, type OperationRecord } from "./model.js";

/** What a change of maintenance windows does to an operation held for them: a new release, or its end. */
export type HeldChange = { notBefore: number } | { cancel: string };

/**
 * How a held operation follows its agent's windows as they are now (`closed`: undefined when they are open,
 * or the agent has none): released now when they are open, held until their next opening when it moved,
 * cancelled when they never open together. Undefined when it stays as it is, or is no longer held.
 */
export function heldChange(
  record: Pick<OperationRecord, "state" | "notBefore">,
  closed: ClosedWindows | undefined,
  now: number,
): HeldChange | undefined {
  if (record.state !== "queued" || !isHeld(record, now)) return undefined;
  if (closed === undefined) return { notBefore: now };
  if (closed.nextOpening === undefined)
    return { cancel: `The maintenance windows changed: ${closedWindowsReason(closed)}` };
  return closed.nextOpening === record.notBefore ? undefined : { notBefore: closed.nextOpening };
}

import type { AckState } from "../c2/model.js";

/**
 * An operation's lifecycle. Queued waits for the agent's next heartbeat, delivered went out in a
 * heartbeat reply, and the other four are final: nothing moves an operation out of them.
 */
export const OperationStates = ["queued", "delivered", "done", "failed", "timed_out", "cancelled"] as const;
export type OperationState = (typeof OperationStates)[number];

/** Every allowed transition. A store applies one only if the operation is still in the `from` state. */
export const OperationTransitions: Readonly<Record<OperationState, readonly OperationState[]>> = {
  queued: ["delivered", "timed_out", "cancelled"],
  delivered: ["done", "failed", "timed_out"],
  done: [],
  failed: [],
  timed_out: [],
  cancelled: [],
};

export const canTransition = (from: OperationState, to: OperationState): boolean =>
  OperationTransitions[from].includes(to);

export const isFinal = (state: OperationState): boolean => OperationTransitions[state].length === 0;

/** The operations Beacon creates on request, with the operand each takes ("" for none). */
export const OperationKinds = [
  { operation: "DESCRIBE", operand: "MANIFEST" },
  { operation: "UPDATE", operand: "PROPERTIES" },
  { operation: "UPDATE", operand: "CONFIGURATION" },
  { operation: "START", operand: "FLOW" },
  { operation: "STOP", operand: "FLOW" },
  { operation: "RESTART", operand: "" },
  { operation: "CLEAR", operand: "CONNECTION" },
  { operation: "PAUSE", operand: "" },
  { operation: "RESUME", operand: "" },
] as const;

/** Agents never acknowledge these (the C++ agent pauses or resumes and says nothing): done on delivery. */
export const isNeverAcknowledged = (operation: string): boolean =>
  operation === "PAUSE" || operation === "RESUME";

export interface OperationRecord {
  tenant: string;
  agentId: string;
  operationId: string;
  /** Upper-case, as sent on the wire. */
  operation: string;
  /** Upper-case; absent for operations that take none. */
  operand?: string;
  args?: Record<string, string>;
  /** Operations of the same agent that must be done before this one is delivered. */
  dependsOn?: string[];
  state: OperationState;
  createdAt: number;
  /** Who asked for it: a console token's subject. */
  createdBy: string;
  deliveredAt?: number;
  /** How long the agent may take to acknowledge once delivered; the service default when absent. */
  ackTimeoutMs?: number;
  /** The rollout that sent it, for UPDATE CONFIGURATION a rollout queued. */
  rolloutId?: string;
  /** When a delivered operation without an acknowledgement counts as timed out. */
  timeoutAt?: number;
  /** When the sweeper looks at the open operation next (see timeouts.ts); gone once it closes. */
  dueAt?: number;
  finishedAt?: number;
  /** The acknowledgement's state, as the agent sent it. */
  ackState?: AckState;
  details?: string;
  failureCause?: string;
  /** Why Beacon itself closed it (cancelled, a failed dependency, no longer supported). */
  reason?: string;
}

/** What one transition writes besides the new state. */
export type OperationChange = Partial<
  Pick<
    OperationRecord,
    "deliveredAt" | "timeoutAt" | "dueAt" | "finishedAt" | "ackState" | "details" | "failureCause" | "reason"
  >
> & { state: OperationState };

/**
 * What an acknowledgement means for a delivered operation. PARTIALLY_APPLIED counts as done (the agent
 * applied what it could; its details are kept); NOT_APPLIED and OPERATION_NOT_UNDERSTOOD are failures.
 */
export function stateAfterAck(ack: AckState): "done" | "failed" {
  switch (ack) {
    case "FULLY_APPLIED":
    case "PARTIALLY_APPLIED":
    case "NO_OPERATION":
      return "done";
    case "NOT_APPLIED":
    case "OPERATION_NOT_UNDERSTOOD":
      return "failed";
  }
}

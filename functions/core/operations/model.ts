import type { AckState, OperationArgs } from "../c2/model.js";
import type { Confirmation, OperationState } from "../events/model.js";

/** Every allowed transition. A store applies one only if the operation is still in the `from` state. */
export const OperationTransitions: Readonly<Record<OperationState, readonly OperationState[]>> = {
  queued: ["delivered", "timed_out", "cancelled"],
  // Done by the acknowledgement, or by a heartbeat that shows the effect of one whose acknowledgement was lost.
  delivered: ["awaiting_effect", "done", "failed", "timed_out"],
  awaiting_effect: ["done", "timed_out"],
  done: [],
  failed: [],
  timed_out: [],
  cancelled: [],
};

export const canTransition = (from: OperationState, to: OperationState): boolean =>
  OperationTransitions[from].includes(to);

export const isFinal = (state: OperationState): boolean => OperationTransitions[state].length === 0;

/**
 * The operations Beacon creates on request, with the operand each takes ("" for none). START and STOP take
 * a C++ component (its id or name, `FlowController`, `c2`) as their operand too.
 */
export const OperationKinds = [
  { operation: "DESCRIBE", operand: "MANIFEST" },
  { operation: "DESCRIBE", operand: "METRICS" },
  { operation: "DESCRIBE", operand: "CONFIGURATION" },
  { operation: "DESCRIBE", operand: "JSTACK" },
  { operation: "DESCRIBE", operand: "CORECOMPONENTSTATE" },
  { operation: "UPDATE", operand: "PROPERTIES" },
  { operation: "UPDATE", operand: "CONFIGURATION" },
  { operation: "UPDATE", operand: "ASSET" },
  { operation: "SYNC", operand: "RESOURCE" },
  { operation: "START", operand: "FLOW" },
  { operation: "STOP", operand: "FLOW" },
  { operation: "START", operand: "PROCESSOR" },
  { operation: "STOP", operand: "PROCESSOR" },
  { operation: "RESTART", operand: "" },
  { operation: "CLEAR", operand: "CONNECTION" },
  { operation: "CLEAR", operand: "REPOSITORIES" },
  { operation: "CLEAR", operand: "CORECOMPONENTSTATE" },
  { operation: "TRANSFER", operand: "DEBUG" },
  { operation: "PAUSE", operand: "" },
  { operation: "RESUME", operand: "" },
] as const;

/** Agents never acknowledge these (the C++ agent pauses or resumes and says nothing): done on delivery. */
/** Queued but held for its class's maintenance window until `notBefore`: not delivered yet. */
export const isHeld = (record: Pick<OperationRecord, "notBefore">, now: number): boolean =>
  record.notBefore !== undefined && record.notBefore > now;

/** When an operation began to wait for delivery: its creation, or the window it was held for. */
export const queuedSince = (record: Pick<OperationRecord, "createdAt" | "notBefore">): number =>
  record.notBefore ?? record.createdAt;

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
  args?: OperationArgs;
  /** Operations of the same agent that must be done before this one is delivered. */
  dependsOn?: string[];
  state: OperationState;
  createdAt: number;
  /** Who asked for it: a console token's subject. */
  createdBy: string;
  /** The agent's class when it was created, which its events name for the class's history. */
  agentClass?: string;
  deliveredAt?: number;
  /**
   * How long the agent may take to acknowledge once delivered, and to show the effect once acknowledged
   * when it must; the service default when absent.
   */
  ackTimeoutMs?: number;
  /**
   * Held until then: created while its class's maintenance windows were closed, it is delivered from their
   * next opening, which the sweeper's look at it releases it at; its queued timeout counts from then.
   */
  notBefore?: number;
  /** The rollout that sent it, for UPDATE CONFIGURATION a rollout queued. */
  rolloutId?: string;
  /** When a delivered operation without an acknowledgement, or one awaiting its effect, counts as timed out. */
  timeoutAt?: number;
  /** When the sweeper looks at the open operation next (see timeouts.ts); gone once it closes. */
  dueAt?: number;
  finishedAt?: number;
  /** The acknowledgement's state, as the agent sent it. */
  ackState?: AckState;
  /** Absent for PAUSE and RESUME, done on delivery. */
  confirmedBy?: Confirmation;
  details?: string;
  failureCause?: string;
  /** Why Beacon itself closed it (cancelled, a failed dependency, no longer supported). */
  reason?: string;
  /** The answer its acknowledgement brought (a DESCRIBE's, results.ts), kept for the console until it expires. */
  result?: OperationResult;
  /** Its acknowledgement brought an answer that could not be kept. */
  resultLost?: boolean;
  /** TRANSFER DEBUG: the debug bundle the agent uploaded, served by the console until it expires. */
  bundle?: OperationResult;
}

/** How large an operation's kept answer is, and until when the console serves it (epoch ms). */
export interface OperationResult {
  bytes: number;
  storedAt: number;
  expiresAt: number;
}

/** What one transition writes besides the new state. */
export type OperationChange = Partial<
  Pick<
    OperationRecord,
    | "deliveredAt"
    | "timeoutAt"
    | "notBefore"
    | "dueAt"
    | "finishedAt"
    | "ackState"
    | "confirmedBy"
    | "details"
    | "failureCause"
    | "reason"
    | "result"
    | "resultLost"
    | "bundle"
  >
> & { state: OperationState };

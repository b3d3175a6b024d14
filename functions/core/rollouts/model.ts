import type { RolloutCounts, RolloutState } from "../events/model.js";
import type { AgentSelector } from "../fleet/agents.js";
/** Every allowed transition; a store applies one only if the rollout is unchanged since it was read. */
export const RolloutTransitions: Readonly<Record<RolloutState, readonly RolloutState[]>> = {
  awaiting_approval: ["scheduled", "canary", "refused"],
  scheduled: ["canary", "refused"],
  canary: ["rolling", "following", "paused", "rolling_back", "completed", "aborted"],
  rolling: ["following", "paused", "rolling_back", "completed", "aborted"],
  following: ["paused", "rolling_back", "completed", "aborted"],
  paused: ["canary", "rolling", "following", "rolling_back", "completed", "aborted"],
  rolling_back: ["rolled_back", "aborted"],
  completed: [],
  rolled_back: [],
  aborted: [],
  refused: [],
};

/** The states of a rollout that has not started: it holds its class, but has not touched it or its agents. */
export type WaitingState = "awaiting_approval" | "scheduled";
export const isRolloutWaiting = (state: RolloutState): state is WaitingState =>
  state === "awaiting_approval" || state === "scheduled";

export const isRolloutFinal = (state: RolloutState): boolean => RolloutTransitions[state].length === 0;
export const canRolloutTransition = (from: RolloutState, to: RolloutState): boolean =>
  from === to || RolloutTransitions[from].includes(to);

/** The states in which a rollout sends its version to agents, and to which a paused one resumes. */
export type UpdatingState = "canary" | "rolling" | "following";

/**
 * A selector (as POST /operations' is spelled, but its class and group: the rollout's own) that narrows a
 * rollout to some of its class's agents.
 */
export type RolloutSelector = Omit<AgentSelector, "class" | "group">;

/** A share of agents: a count, or a percent of a whole. */
export type Share = { count: number; percent?: undefined } | { percent: number; count?: undefined };

export interface RolloutPlan {
  /** The first group, which must be healthy before rolling batches begin. */
  canary: Share;
  /** Agents per rolling batch. */
  batchSize: number;
  /** Least time between the starts of two batches. */
  batchIntervalSeconds: number;
  /** How long an updated agent must keep heartbeating on the new flow without new ERROR bulletins. */
  soakSeconds: number;
  /** Failed agents (a count, or a percent of the agents updated so far) at which the rollout stops. */
  failureThreshold: Share;
  /** What reaching the threshold does. */
  onFailure: "pause" | "rollback";
}

/** The incumbent's pace (100 agents per 10 s), gated on health. */
export const DEFAULT_ROLLOUT_PLAN: RolloutPlan = {
  canary: { percent: 5 },
  batchSize: 100,
  batchIntervalSeconds: 10,
  soakSeconds: 120,
  failureThreshold: { percent: 5 },
  onFailure: "rollback",
};

export const emptyCounts = (): RolloutCounts => ({
  selected: 0,
  updating: 0,
  soaking: 0,
  healthy: 0,
  failed: 0,
  skipped: 0,
  rollingBack: 0,
  rolledBack: 0,
  rollbackFailed: 0,
});

export interface RolloutRecord {
  tenant: string;
  rolloutId: string;
  className: string;
  /**
   * Narrows the class's agents to a group's members, or to those the filters pick, evaluated at each batch;
   * neither: the whole class. Such a rollout leaves the class's target as it is: each agent it updates gets
   * an assignment that holds it on the version over that target (AgentAssignment).
   */
  group?: string;
  selector?: RolloutSelector;
  /**
   * With a group or selector: once it has passed its class it is `following`, adding agents that join the
   * group (or come to match) until it is finished.
   */
  continuous?: boolean;
  /** The class's target before: what a rollback returns agents to. Absent when the class had none. */
  fromFlow?: string;
  toFlow: string;
  /**
   * The flow ids agents report that count as `fromFlow` and as `toFlow` (flowIdsOf): a version adopted from
   * what agents ran is also reported by its adopted id. Absent when only the hash counts.
   */
  fromFlowIds?: string[];
  toFlowIds?: string[];
  /**
   * It rolls out the class's staged values, frozen under its id when it started, rather than a version:
   * `fromFlow` and `toFlow` are both the class's target, `toFlowIds` its rendering with the frozen values.
   */
  stagedValues?: boolean;
  state: RolloutState;
  /** The updating state a paused rollout resumes to. */
  resumeTo?: UpdatingState;
  plan: RolloutPlan;
  /** Agents it could take when it started (the class's, or its group's or selector's), and the canary group's size from it. */
  classSize: number;
  canarySize: number;
  /** Batches started; batch 0 is the canary. */
  batches: number;
  lastBatchAt?: number;
  /** Agent id the next batch reads on from in the class's agent index; absent before the first. */
  cursor?: string;
  /** The class index has been read to its end. */
  exhausted: boolean;
  /** Members per state, over every batch; `skipped` counts agents passed over. */
  counts: RolloutCounts;
  /** The counts of the batches before the current one, which no longer change until a rollback. */
  settled: RolloutCounts;
  /** Failures a person accepted by resuming after the threshold paused it: the threshold counts those after. */
  acceptedFailures: number;
  /** Starts it then, not before (epoch ms); absent, it starts once created (or approved). */
  startAt?: number;
  /** Its creator accepted agents whose manifests lack types the flow uses: its start checks them so too. */
  allowIncompatible?: boolean;
  /** The second operator who approved it, when its class requires approval. */
  approvedBy?: string;
  approvedAt?: number;
  /** Who refused it before it started (its creator withdrawing it, or another operator). */
  refusedBy?: string;
  /** Who aborted it: its rollback ends aborted rather than rolled_back. */
  abortedBy?: string;
  /**
   * The next opening of the class's maintenance windows, while the next batch (or the completion, whose
   * policy catch-up sends) waits for it; absent otherwise.
   */
  waitingForWindow?: number;
  /** Why it paused, rolls back or was aborted. */
  reason?: string;
  createdAt: number;
  createdBy: string;
  updatedAt: number;
  finishedAt?: number;
  /** Bumped by every write: each write is conditional on the version it read. */
  version: number;
}

/**
 * One agent in a rollout. updating waits for the UPDATE CONFIGURATION's acknowledgement and the new flow
 * id; soaking watches it heartbeat; healthy and failed settle it; the rolling_back states follow a rollback.
 */
export const MemberStates = [
  "updating",
  "soaking",
  "healthy",
  "failed",
  "rolling_back",
  "rolled_back",
  "rollback_failed",
] as const;
export type MemberState = (typeof MemberStates)[number];

export const MemberTransitions: Readonly<Record<MemberState, readonly MemberState[]>> = {
  updating: ["soaking", "failed", "rolling_back", "rolled_back"],
  soaking: ["healthy", "failed", "rolling_back"],
  healthy: ["rolling_back"],
  failed: ["rolling_back", "rolled_back"],
  rolling_back: ["rolled_back", "rollback_failed"],
  rolled_back: [],
  rollback_failed: [],
};

export interface RolloutMember {
  tenant: string;
  rolloutId: string;
  agentId: string;
  /** 0 for the canary. */
  batch: number;
  state: MemberState;
  /** The UPDATE CONFIGURATION that carries the new version. */
  operationId: string;
  /**
   * The agent was held by another rollout's assignment when selected: this one, a rollout of the whole
   * class, drops it once the agent runs the new version.
   */
  heldByAssignment?: boolean;
  /** The flow id the agent reported when selected. */
  previousFlowId?: string;
  /**
   * The flow id the agent reports once it runs the new version, when another than the version's hash: its
   * rendering with its values, for a version that declares parameters.
   */
  newFlowId?: string;
  selectedAt: number;
  soakingSince?: number;
  settledAt?: number;
  /** When the health gate failed it; kept through its rollback, so the rollout keeps counting it as failed. */
  failedAt?: number;
  rollbackOperationId?: string;
  reason?: string;
}

/** Members per state as the counts name them. */
export const countOf: Record<MemberState, keyof RolloutCounts> = {
  updating: "updating",
  soaking: "soaking",
  healthy: "healthy",
  failed: "failed",
  rolling_back: "rollingBack",
  rolled_back: "rolledBack",
  rollback_failed: "rollbackFailed",
};

/** How many of `whole` a share is: percent rounds up, so a non-empty share is never zero agents. */
export const sizeOf = (share: Share, whole: number): number =>
  share.count !== undefined ? Math.min(share.count, whole) : Math.ceil((share.percent * whole) / 100);

/** Whether this many failures reach the threshold; a percent counts against the agents updated so far. */
export const thresholdReached = (threshold: Share, failed: number, selected: number): boolean =>
  failed > 0 &&
  (threshold.count !== undefined ? failed >= threshold.count : failed * 100 >= threshold.percent * selected);

import type { Bulletin, QueueStatus } from "../c2/model.js";
import type { AgentStatus } from "./status.js";

/**
 * Why an agent needs an operator's attention, in the order the console lists them. `pinned` is its own
 * reason rather than `offTarget`: a pinned agent runs another flow than its class's on purpose.
 */
export const ATTENTION_REASONS = [
  "offline",
  "errorBulletins",
  "backPressure",
  "operationFailed",
  "offTarget",
  "pinned",
  "certificateExpiring",
] as const;

export type AttentionReason = (typeof ATTENTION_REASONS)[number];

/**
 * The reasons the cache keeps agents by, per class: the heartbeat's own (in its one round trip, in this order)
 * and the last operation's outcome (its acknowledgement and the timeouts).
 */
export const CACHED_ATTENTION_REASONS = [
  "errorBulletins",
  "backPressure",
  "offTarget",
  "pinned",
  "operationFailed",
] as const;

export type CachedAttentionReason = (typeof CACHED_ATTENTION_REASONS)[number];

/**
 * The reasons the agent list filters by and the fleet counts: all but an expiring certificate, which the
 * certificates list filters by.
 */
export const LISTED_ATTENTION_REASONS = ["offline", ...CACHED_ATTENTION_REASONS] as const;

export type ListedAttentionReason = (typeof LISTED_ATTENTION_REASONS)[number];

/** An ERROR bulletin keeps its agent in need of attention this long after it was raised, unless set otherwise. */
export const ERROR_BULLETIN_WINDOW_MS = 15 * 60_000;

/**
 * Until when the heartbeat's ERROR bulletins hold the agent in need of attention: the latest one's time (no
 * later than `now`, an agent's clock may run ahead; `now` for one without a time) plus the window; undefined
 * when it lists none, or only ones older than the window. An agent lists a bulletin again in every heartbeat
 * while it keeps it, so a heartbeat without one says nothing of those before it: their time runs out alone.
 */
export function errorBulletinsUntil(
  bulletins: readonly Bulletin[] | undefined,
  now: number,
  windowMs = ERROR_BULLETIN_WINDOW_MS,
): number | undefined {
  // The heartbeat's reading spells levels in capitals.
  const errors = (bulletins ?? []).filter((bulletin) => bulletin.level === "ERROR");
  if (errors.length === 0) return undefined;
  const latest = Math.min(now, Math.max(...errors.map((bulletin) => bulletin.timestamp ?? now)));
  const until = latest + windowMs;
  return until > now ? until : undefined;
}

/**
 * Whether any queue the heartbeat reports is back-pressured (at its object or size limit, as the heartbeat's
 * reading decides); undefined when it reports no queues.
 */
export function isBackPressured(queues: readonly QueueStatus[] | undefined): boolean | undefined {
  return queues?.some((queue) => queue.backPressure === true);
}

/** How the agent's flow stands to what it is held to: its class's target, or its pin. */
export type FlowStanding = "current" | "offTarget" | "pinned";

/** What Beacon knows of an agent that says whether it needs attention; what is unknown counts as fine. */
export interface AttentionFacts {
  status: AgentStatus;
  /** Until when its ERROR bulletins hold it (errorBulletinsUntil). */
  errorBulletinsUntil?: number;
  backPressured?: boolean;
  /** Its last operation failed or timed out, and none has succeeded since. */
  lastOperationFailed?: boolean;
  flow?: FlowStanding;
  /** The soonest notAfter of its agent certificates not revoked. */
  certificateNotAfter?: number;
}

/** What the cache's attention indexes tell of an agent. */
export type CachedAttentionFacts = Pick<
  AttentionFacts,
  "errorBulletinsUntil" | "backPressured" | "lastOperationFailed" | "flow"
>;

/** The facts an agent's scores in the cache's attention indexes tell (null where it is in none). */
export function factsOfScores(scores: Record<CachedAttentionReason, number | null>): CachedAttentionFacts {
  const flow: FlowStanding | undefined =
    scores.pinned !== null ? "pinned" : scores.offTarget !== null ? "offTarget" : undefined;
  return {
    ...(scores.errorBulletins === null ? {} : { errorBulletinsUntil: scores.errorBulletins }),
    ...(scores.backPressure === null ? {} : { backPressured: true }),
    ...(scores.operationFailed === null ? {} : { lastOperationFailed: true }),
    ...(flow === undefined ? {} : { flow }),
  };
}

/** `now`, and how many days before its notAfter a certificate counts as expiring (none when not given). */
export interface AttentionRule {
  now: number;
  certificateWarningDays?: number;
}

/** The reasons the agent needs attention at `now`, in ATTENTION_REASONS' order; none when it needs none. */
export function attentionReasonsOf(facts: AttentionFacts, rule: AttentionRule): AttentionReason[] {
  const { now } = rule;
  const holds: Record<AttentionReason, boolean> = {
    offline: facts.status === "offline",
    errorBulletins: facts.errorBulletinsUntil !== undefined && facts.errorBulletinsUntil > now,
    backPressure: facts.backPressured === true,
    operationFailed: facts.lastOperationFailed === true,
    offTarget: facts.flow === "offTarget",
    pinned: facts.flow === "pinned",
    certificateExpiring:
      facts.certificateNotAfter !== undefined &&
      rule.certificateWarningDays !== undefined &&
      facts.certificateNotAfter <= now + rule.certificateWarningDays * 86_400_000,
  };
  return ATTENTION_REASONS.filter((reason) => holds[reason]);
}

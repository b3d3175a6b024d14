/**
 * A rollout's progress batch by batch, and when the batches still to come should start: pure computation for
 * the rollout page's stacked bars. A batch's pace is the sweeper's as much as the plan's: a batch starts, an
 * agent on the new version starts soaking, and a soaked one counts as healthy only at one of the sweeper's runs.
 */
import type { components } from "./api/schema.js";

type Schemas = components["schemas"];

type Rollout = Pick<
  Schemas["Rollout"],
  | "state"
  | "plan"
  | "classSize"
  | "canarySize"
  | "batches"
  | "lastBatchAt"
  | "exhausted"
  | "counts"
  | "sweeperIntervalSeconds"
>;
type Member = Pick<Schemas["RolloutAgent"], "batch" | "state" | "runsNewVersion">;

/** The parts of a batch's bar, in the order they are drawn. */
export const SEGMENTS = ["done", "applied", "updating", "failed", "rolledBack", "toCome"] as const;
export type Segment = (typeof SEGMENTS)[number];

export const SEGMENT_WORDS: Record<Segment, string> = {
  done: "done",
  applied: "on the new version, soaking",
  updating: "updating",
  failed: "failed",
  rolledBack: "rolled back",
  toCome: "to come",
};

export interface BatchProgress {
  /** 0 for the canary. */
  batch: number;
  /** Agents in it: its members once started, the plan's size before. */
  size: number;
  counts: Record<Segment, number>;
  /** When it should start (epoch ms), for a batch still to come of a rollout under way. */
  expectedStart?: number;
}

export interface RolloutProgress {
  batches: BatchProgress[];
  /** Agents passed over (offline, on the version already, unable to take it): in no batch. */
  skipped: number;
  /** How long a batch should take from its start to the next one's, in seconds. */
  batchSeconds: number;
  /** When the last batch should be over (epoch ms), while the rollout is under way and its class not passed. */
  expectedEnd?: number;
}

const UNDER_WAY: Schemas["RolloutState"][] = ["canary", "rolling"];
/** A rollout in one of these is over: nothing it does changes any more. */
export const FINAL_STATES: Schemas["RolloutState"][] = ["completed", "rolled_back", "aborted", "refused"];

/** The first of the sweeper's runs at or after `seconds`, at least one run away. */
const atARun = (seconds: number, sweeperSeconds: number): number =>
  sweeperSeconds * Math.max(1, Math.ceil(seconds / sweeperSeconds));

/**
 * From a batch's start to the next one's: its agents take the update at their next heartbeat and report the
 * new version at the one after, which the sweeper sees at its next run; they soak, and the run after the soak
 * counts them healthy and starts the next batch, unless the plan's interval between batches is longer.
 */
export function batchSeconds(
  plan: Pick<Schemas["RolloutPlan"], "batchIntervalSeconds" | "soakSeconds">,
  sweeperSeconds: number,
  heartbeatSeconds: number,
): number {
  const applied = atARun(2 * heartbeatSeconds, sweeperSeconds);
  const soaked = atARun(plan.soakSeconds, sweeperSeconds);
  return Math.max(atARun(plan.batchIntervalSeconds, sweeperSeconds), applied + soaked);
}

function segmentOf(member: Member): Segment {
  switch (member.state) {
    case "healthy":
      return "done";
    case "soaking":
      return "applied";
    case "updating":
      return member.runsNewVersion ? "applied" : "updating";
    case "failed":
    case "rollback_failed":
      return "failed";
    case "rolling_back":
    case "rolled_back":
      return "rolledBack";
  }
}

const emptyCounts = (): Record<Segment, number> => ({
  done: 0,
  applied: 0,
  updating: 0,
  failed: 0,
  rolledBack: 0,
  toCome: 0,
});

/**
 * The rollout's batches: those started, from the members at hand (a page of them: their batches only), and
 * those still to come, from the plan over the agents neither selected nor passed over yet.
 */
export function rolloutProgress(
  rollout: Rollout,
  members: Member[],
  heartbeatSeconds: number,
  now: number,
): RolloutProgress {
  const seconds = batchSeconds(rollout.plan, rollout.sweeperIntervalSeconds, heartbeatSeconds);
  const started = new Map<number, BatchProgress>();
  for (const member of members) {
    let batch = started.get(member.batch);
    if (!batch) {
      batch = { batch: member.batch, size: 0, counts: emptyCounts() };
      started.set(member.batch, batch);
    }
    batch.size++;
    batch.counts[segmentOf(member)]++;
  }
  const batches = [...started.values()].sort((first, second) => first.batch - second.batch);
  const remaining = rollout.exhausted
    ? 0
    : Math.max(0, rollout.classSize - rollout.counts.selected - rollout.counts.skipped);
  const underWay = UNDER_WAY.includes(rollout.state);
  // The next batch starts a batch's time after the last one did, or at the sweeper's next run if that is past.
  const lastStart = rollout.lastBatchAt === undefined ? undefined : Date.parse(rollout.lastBatchAt);
  const nextStart =
    lastStart === undefined
      ? now
      : Math.max(lastStart + seconds * 1000, now + rollout.sweeperIntervalSeconds * 1000);
  let left = remaining;
  let index = rollout.batches;
  if (rollout.batches === 0 && left > 0) {
    const size = Math.min(left, Math.max(1, rollout.canarySize));
    batches.push(toCome(0, size, underWay ? nextStart : undefined));
    left -= size;
    index = 1;
  }
  while (left > 0) {
    const size = Math.min(left, rollout.plan.batchSize);
    const start = nextStart + (index - rollout.batches) * seconds * 1000;
    batches.push(toCome(index, size, underWay ? start : undefined));
    left -= size;
    index++;
  }
  const last = batches.at(-1);
  const expectedEnd =
    underWay && remaining > 0 && last?.expectedStart !== undefined
      ? last.expectedStart + seconds * 1000
      : undefined;
  return { batches, skipped: rollout.counts.skipped, batchSeconds: seconds, expectedEnd };
}

function toCome(batch: number, size: number, expectedStart: number | undefined): BatchProgress {
  return { batch, size, counts: { ...emptyCounts(), toCome: size }, expectedStart };
}

/** A batch's bar in words, its text alternative: "canary: 2 done, 1 updating". */
export function describeBatch(batch: BatchProgress): string {
  const parts = SEGMENTS.filter((segment) => batch.counts[segment] > 0).map(
    (segment) => `${batch.counts[segment]} ${SEGMENT_WORDS[segment]}`,
  );
  return `${batch.batch === 0 ? "canary" : `batch ${batch.batch}`}: ${parts.join(", ") || "no agents"}`;
}

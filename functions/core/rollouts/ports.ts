import type { RolloutState } from "../events/model.js";
import type { ClassFlowPolicy } from "../flows/policy.js";
import type { Page } from "../paging.js";
import type { MemberState, RolloutMember, RolloutRecord } from "./model.js";

/** Filters narrow each page as it is read: a page may come short, or empty, and still lead on. */
export interface RolloutQuery {
  className?: string;
  state?: RolloutState;
  limit: number;
  /** Rollout id of the last item already returned; lists run newest first. */
  after?: string;
}

/**
 * Rollouts and their members in the registry. A class has at most one active rollout; starting one,
 * and every change of the class's flow policy, is written together with the rollout, conditionally.
 */
export interface RolloutStore {
  /**
   * Writes a new rollout and makes it the class's active one, with the class's flow policy as given
   * (undefined leaves the class without one); false, writing nothing, when the class has an active rollout.
   */
  start(record: RolloutRecord, policy: ClassFlowPolicy | undefined): Promise<boolean>;
  /**
   * Writes a new rollout that waits to start (for an approval or its start time) and makes it the class's
   * active one, leaving the class's flow policy as it is; false, writing nothing, when the class has an
   * active rollout. It starts by a `save` with the policy.
   */
  hold(record: RolloutRecord): Promise<boolean>;
  get(tenant: string, rolloutId: string): Promise<RolloutRecord | undefined>;
  list(tenant: string, query: RolloutQuery): Promise<Page<RolloutRecord>>;
  /**
   * Writes the rollout if the stored one still has `readVersion` (the record carries readVersion + 1);
   * with `policy`, the class's flow policy changes in the same write; a final rollout stops being the
   * class's active one in it too. False when the stored rollout changed meanwhile: nothing is written.
   */
  save(record: RolloutRecord, readVersion: number, policy?: ClassFlowPolicy): Promise<boolean>;
  /** Every tenant's active (not final) rollouts, for the sweeper. */
  active(): AsyncIterable<{ tenant: string; rolloutId: string }>;
  /**
   * Writes members that do not exist yet and returns those it wrote; ones that exist (a retried batch, or
   * a look racing this one) stay as they are, and belong to whoever wrote them.
   */
  addMembers(members: RolloutMember[]): Promise<RolloutMember[]>;
  /** Members of one batch, or of every batch, read consistently, by agent id within a batch. */
  members(tenant: string, rolloutId: string, batch?: number): Promise<RolloutMember[]>;
  /** Members page by page, for the console, in batch then agent id order. */
  memberPage(
    tenant: string,
    rolloutId: string,
    request: { limit: number; after?: string },
  ): Promise<Page<RolloutMember>>;
  /** Applies the change only if the member is still `from`; false otherwise. */
  updateMember(member: RolloutMember, from: MemberState): Promise<boolean>;
}

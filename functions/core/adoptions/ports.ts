import type { ClassFlowPolicy } from "../flows/policy.js";
import type { Page, PageRequest } from "../paging.js";
import type { AdoptionRecord } from "./model.js";

/** Where an adoption is kept: its tenant, class and id. */
export type AdoptionKey = Pick<AdoptionRecord, "tenant" | "className" | "adoptionId">;

/**
 * What making a version the class's current one did: `made` it (this call wrote the policy), found it `already`
 * the class's policy (a settlement of the same adoption at the same time wrote it), or was `refused` (the class
 * has another policy, or a rollout under way).
 */
export type MadeCurrent = "made" | "already" | "refused";

/** Adoptions by tenant, class and id, and the one write of a class's policy an adoption makes. */
export interface AdoptionStore {
  create(record: AdoptionRecord): Promise<void>;
  get(tenant: string, className: string, adoptionId: string): Promise<AdoptionRecord | undefined>;
  /** The class's adoptions, newest first; `after` is the id of the last one returned. */
  list(tenant: string, className: string, page: PageRequest): Promise<Page<AdoptionRecord>>;
  /** Writes the settled record if the stored one is still requested; false, writing nothing, otherwise. */
  settle(record: AdoptionRecord): Promise<boolean>;
  /** Every tenant's adoptions still requested, oldest first: what the sweeper settles. */
  requested(): AsyncIterable<AdoptionKey>;
  /**
   * Makes `policy` the class's flow policy when the class has none and no rollout under way (creating the
   * class when it is not there); writes nothing otherwise, and tells whether the class's policy targets
   * `policy`'s version already.
   */
  makeCurrent(tenant: string, className: string, policy: ClassFlowPolicy, now: number): Promise<MadeCurrent>;
}

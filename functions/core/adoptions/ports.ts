import type { ClassFlowPolicy } from "../flows/policy.js";
import type { AdoptionRecord } from "./model.js";

/** Adoptions by tenant, class and id, and the one write of a class's policy an adoption makes. */
export interface AdoptionStore {
  create(record: AdoptionRecord): Promise<void>;
  get(tenant: string, className: string, adoptionId: string): Promise<AdoptionRecord | undefined>;
  /** Writes the settled record if the stored one is still requested; false, writing nothing, otherwise. */
  settle(record: AdoptionRecord): Promise<boolean>;
  /**
   * Makes `policy` the class's flow policy when the class has none and no rollout under way (creating the
   * class when it is not there); false, writing nothing, otherwise.
   */
  makeCurrent(tenant: string, className: string, policy: ClassFlowPolicy, now: number): Promise<boolean>;
}

/**
 * Adopting a flow agents run: Beacon fetches it from one of them (TRANSFER DEBUG) and keeps it as a version of
 * their class, with the flow id they report recorded on it, so that the class's policy counts them as on it.
 */

/** `requested` until the agent's bundle is read; then `adopted` (a version holds the flow) or `failed`. */
export type AdoptionState = "requested" | "adopted" | "failed";

export interface AdoptionRecord {
  tenant: string;
  className: string;
  /** The TRANSFER DEBUG operation that fetches the flow; it names the adoption too. */
  adoptionId: string;
  /** The flow id the class's agents report for the flow adopted. */
  flowId: string;
  /** The agent the flow is fetched from. */
  agentId: string;
  state: AdoptionState;
  /** Why it failed. */
  reason?: string;
  /** The version that holds the flow, once adopted. */
  flowHash?: string;
  /** The bundle entry the flow was read from (`flow.json`, `config.yml`). */
  bundleEntry?: string;
  /** The adoption made the version the class's current one: the class had no flow version in force before. */
  current?: boolean;
  createdAt: number;
  /** Subject of the token that asked for it. */
  createdBy: string;
  updatedAt: number;
}

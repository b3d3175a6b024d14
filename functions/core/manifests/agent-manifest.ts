import { ownHeartbeatPeriodMsOf } from "../c2/heartbeat-period.js";
import { type SupportedOperations, supportedOperationsOf } from "../c2/manifest.js";
import { dropUndefined } from "../json.js";

/**
 * What an agent's manifest says of that agent alone, beside the binary it runs: kept with the agent (its
 * registry entry), while the binary's content is stored once per tenant under `manifestId`.
 */
export interface AgentManifest {
  /** The `agentManifestHash` the agent reported with the manifest: its own, not its binary's. */
  hash: string;
  /** The canonical identity of the agent's binary (canonical.ts). */
  manifestId: string;
  /**
   * The agent's `supportedOperations` as it reported them, property values included, but for the entries
   * that name no operation (supportedOperationEntriesOf): those of manifests stored before they were dropped
   * may hold anything.
   */
  supportedOperations: unknown[];
}

/** The agent's manifest as the cache keeps it: what a heartbeat needs, without property values. */
export interface KnownManifest {
  hash: string;
  manifestId: string;
  supportedOperations: SupportedOperations;
  /** The heartbeat period the manifest states, when it states one Beacon can read. */
  heartbeatPeriodMs?: number;
}

export const knownManifestOf = (manifest: AgentManifest): KnownManifest =>
  dropUndefined({
    hash: manifest.hash,
    manifestId: manifest.manifestId,
    supportedOperations: supportedOperationsOf(manifest.supportedOperations),
    heartbeatPeriodMs: ownHeartbeatPeriodMsOf(manifest.supportedOperations),
  });

/**
 * The agent's manifest when it is the one of the hash the agent reports now: after a change of its
 * properties or flow, an agent reports a hash whose manifest Beacon has yet to learn.
 */
export const currentManifest = (
  manifest: AgentManifest | undefined,
  reportedHash: string | undefined,
): AgentManifest | undefined =>
  manifest !== undefined && manifest.hash === reportedHash ? manifest : undefined;

/** What the agent can be asked to do, by the manifest of the hash it reports now; undefined while unknown. */
export function operationsOfAgent(
  agent: { manifestHash?: string; manifest?: AgentManifest },
  reportedHash = agent.manifestHash,
): SupportedOperations | undefined {
  const manifest = currentManifest(agent.manifest, reportedHash);
  return manifest && supportedOperationsOf(manifest.supportedOperations);
}

/** The canonical identity of the binary the agent runs, when Beacon knows the manifest of the hash it reports. */
export const manifestIdOf = (
  agent: { manifestHash?: string; manifest?: AgentManifest },
  reportedHash = agent.manifestHash,
): string | undefined => currentManifest(agent.manifest, reportedHash)?.manifestId;

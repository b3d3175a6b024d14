import { asArray, type JsonObject } from "../c2/json.js";
import { summarizeManifest } from "../c2/manifest.js";
import type { GuardedCache } from "../guarded-cache.js";
import { type AgentManifest, type KnownManifest, knownManifestOf } from "./agent-manifest.js";
import { binaryOf } from "./canonical.js";
import type { ManifestStore, StoredManifestsCache } from "./ports.js";

/** The cache's part in registration: which binaries the tenant holds, and each agent's manifest. */
export interface ManifestCache extends StoredManifestsCache {
  /** The agent's manifest for the hash it was reported with; a heartbeat reporting that hash needs nothing else. */
  rememberAgentManifest(tenant: string, agentId: string, manifest: KnownManifest): Promise<void>;
}

export interface ManifestRegistration {
  /**
   * Registers the manifest an agent reported with `hash`: the binary's content is stored once per tenant
   * under its canonical identity, and what is the agent's own comes back for the caller to keep with the
   * agent. An agent of a binary the cache knows to be stored costs a canonical computation and one cache
   * call; otherwise a registry read, and a conditional put when the tenant lacks the content. The read
   * first keeps a herd of agents of one new binary from each writing ~50 KB only to lose the put.
   */
  register(
    tenant: string,
    hash: string,
    manifest: JsonObject,
    now: number,
    cache: GuardedCache,
  ): Promise<{ manifest: AgentManifest; stored: boolean }>;
  /** Tells the cache the agent's manifest, once the registry has it. */
  remember(tenant: string, agentId: string, manifest: AgentManifest, cache: GuardedCache): Promise<void>;
}

export function makeManifestRegistration(deps: {
  store: ManifestStore;
  cache: ManifestCache;
}): ManifestRegistration {
  const { store } = deps;
  return {
    async register(tenant, hash, manifest, now, cache) {
      const { manifestId, canonicalJson } = binaryOf(manifest);
      const agentManifest = { hash, manifestId, supportedOperations: asArray(manifest.supportedOperations) };
      if (await cache.attempt(() => deps.cache.isManifestStored(tenant, manifestId)))
        return { manifest: agentManifest, stored: false };
      const stored =
        !(await store.has(tenant, manifestId)) &&
        (await store.store(tenant, manifestId, canonicalJson, summarizeManifest(manifest), now)) === "stored";
      await cache.attempt(() => deps.cache.rememberManifestStored(tenant, manifestId));
      return { manifest: agentManifest, stored };
    },

    async remember(tenant, agentId, manifest, cache) {
      await cache.attempt(() => deps.cache.rememberAgentManifest(tenant, agentId, knownManifestOf(manifest)));
    },
  };
}

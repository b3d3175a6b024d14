import { asArray, type JsonObject } from "../c2/json.js";
import { summarizeManifest } from "../c2/manifest.js";
import type { GuardedCache } from "../guarded-cache.js";
import { RecentlyUsed } from "../recently-used.js";
import { type AgentManifest, knownManifestOf } from "./agent-manifest.js";
import { binaryOf } from "./canonical.js";
import type { ManifestCache, ManifestStore } from "./ports.js";

/**
 * Manifests one container registered, by tenant and reported hash, at most this many: agents that report
 * one hash (a fleet provisioned alike, or an agent sending its manifest again) cost its canonical
 * computation once per container.
 */
export const REGISTERED_MANIFESTS_KEPT = 1_000;

export interface ManifestRegistration {
  /**
   * Registers the manifest an agent reported with `hash`: the binary's content is stored once per tenant
   * under its canonical identity, and what is the agent's own comes back for the caller to keep with the
   * agent. A hash this container registered costs nothing: the agent's hash covers its whole manifest,
   * so one hash is one manifest (as Beacon always trusted within a tenant). Otherwise an agent of a
   * binary the cache knows to be stored costs a canonical computation and one cache call; one it does
   * not, a read of the manifest store, and a conditional put when the tenant lacks the content. The read
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
  const registered = new RecentlyUsed<string, AgentManifest>(REGISTERED_MANIFESTS_KEPT);

  // Registrations under way, by tenant and hash: a herd of agents reporting one new manifest at once waits
  // for the first one's, which alone computes its identity and writes it.
  const inFlight = new Map<string, Promise<AgentManifest>>();

  async function registerNew(
    tenant: string,
    hash: string,
    manifest: JsonObject,
    now: number,
    cache: GuardedCache,
  ): Promise<{ manifest: AgentManifest; stored: boolean }> {
    const { manifestId, canonicalJson } = binaryOf(manifest);
    const agentManifest = { hash, manifestId, supportedOperations: asArray(manifest.supportedOperations) };
    let stored = false;
    if (!(await cache.attempt(() => deps.cache.isManifestStored(tenant, manifestId)))) {
      stored =
        !(await store.has(tenant, manifestId)) &&
        (await store.store(tenant, manifestId, canonicalJson, summarizeManifest(manifest), now)) === "stored";
      await cache.attempt(() => deps.cache.rememberManifestStored(tenant, manifestId));
    }
    return { manifest: agentManifest, stored };
  }

  return {
    async register(tenant, hash, manifest, now, cache) {
      const key = JSON.stringify([tenant, hash]);
      const known = registered.get(key);
      if (known) return { manifest: known, stored: false };
      const underWay = inFlight.get(key);
      if (underWay) return { manifest: await underWay, stored: false };
      const registration = registerNew(tenant, hash, manifest, now, cache);
      const manifestOfRegistration = registration.then((result) => result.manifest);
      // Its failure is the first request's to report; those waiting on it see it too.
      manifestOfRegistration.catch(() => {});
      inFlight.set(key, manifestOfRegistration);
      try {
        const result = await registration;
        registered.set(key, result.manifest);
        return result;
      } finally {
        inFlight.delete(key);
      }
    },

    async remember(tenant, agentId, manifest, cache) {
      await cache.attempt(() => deps.cache.rememberAgentManifest(tenant, agentId, knownManifestOf(manifest)));
    },
  };
}

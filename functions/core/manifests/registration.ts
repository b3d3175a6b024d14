import { summarizeManifest, supportedOperationEntriesOf } from "../c2/manifest.js";
import type { GuardedCache } from "../guarded-cache.js";
import type { JsonObject } from "../json.js";
import { RecentlyUsed } from "../recently-used.js";
import { singleFlight } from "../single-flight.js";
import { type AgentManifest, knownManifestOf } from "./agent-manifest.js";
import { RecentBinaries } from "./canonical.js";
import type { ManifestCache, ManifestStore } from "./ports.js";

/**
 * Manifests one container registered, by tenant and reported hash, at most this many: agents that report
 * one hash (a fleet provisioned alike, or an agent sending its manifest again) cost its canonical
 * computation once per container.
 */
export const REGISTERED_MANIFESTS_KEPT = 1_000;
/**
 * Binaries one container recognises without canonicalising their manifests (canonical.ts): few, as a container
 * serves agents of few builds at a time, and each keeps a parsed manifest of a few MB.
 */
const RECENT_BINARIES_KEPT = 4;
/**
 * Binaries one container knows its tenants hold, by tenant and identity, at most this many: content is never
 * deleted, so once known stored it needs no cache call again, and a herd of agents of one build, each with a
 * hash of its own, costs the cache no call per agent for it.
 */
const STORED_BINARIES_KEPT = 1_000;

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
  const recentBinaries = new RecentBinaries(RECENT_BINARIES_KEPT);
  const storedBinaries = new RecentlyUsed<string, true>(STORED_BINARIES_KEPT);

  // A herd of agents reporting one new manifest at once: those of one hash wait for the first one's
  // registration, which alone computes its identity; those of one binary, for the first one's store.
  const registrations = singleFlight<{ manifest: AgentManifest; stored: boolean }>();
  const binaries = singleFlight<boolean>();

  /** Whether this call stored the binary's content: the tenant lacked it. */
  async function storeBinary(
    tenant: string,
    manifestId: string,
    manifest: JsonObject,
    canonicalJson: string,
    now: number,
    cache: GuardedCache,
  ): Promise<boolean> {
    if (await cache.attempt(() => deps.cache.isManifestStored(tenant, manifestId))) return false;
    const stored =
      !(await store.has(tenant, manifestId)) &&
      (await store.store(tenant, manifestId, canonicalJson, summarizeManifest(manifest), now)) === "stored";
    await cache.attempt(() => deps.cache.rememberManifestStored(tenant, manifestId));
    return stored;
  }

  async function registerNew(
    tenant: string,
    hash: string,
    manifest: JsonObject,
    now: number,
    cache: GuardedCache,
  ): Promise<{ manifest: AgentManifest; stored: boolean }> {
    const { manifestId, canonicalJson } = recentBinaries.binaryOf(manifest);
    const binaryKey = JSON.stringify([tenant, manifestId]);
    const { value: stored, first } = storedBinaries.get(binaryKey)
      ? { value: false, first: false }
      : await binaries(binaryKey, () => storeBinary(tenant, manifestId, manifest, canonicalJson, now, cache));
    storedBinaries.set(binaryKey, true);
    return {
      manifest: {
        hash,
        manifestId,
        supportedOperations: supportedOperationEntriesOf(manifest.supportedOperations),
      },
      stored: first && stored,
    };
  }

  return {
    async register(tenant, hash, manifest, now, cache) {
      const key = JSON.stringify([tenant, hash]);
      const known = registered.get(key);
      if (known) return { manifest: known, stored: false };
      const { value, first } = await registrations(key, () =>
        registerNew(tenant, hash, manifest, now, cache),
      );
      if (!first) return { manifest: value.manifest, stored: false };
      registered.set(key, value.manifest);
      return value;
    },

    async remember(tenant, agentId, manifest, cache) {
      await cache.attempt(() => deps.cache.rememberAgentManifest(tenant, agentId, knownManifestOf(manifest)));
    },
  };
}

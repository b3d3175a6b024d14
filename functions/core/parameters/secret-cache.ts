import type { Clock } from "../ports.js";
import { KeptFor } from "../recently-used.js";
import type { SecretStore } from "./ports.js";
import type { SecretReference } from "./secret-refs.js";

export interface SecretCacheSettings {
  /** Most secrets a container keeps at once, the least recently used forgotten first. */
  capacity: number;
  /** How long a secret read is served before the store is asked again: how late a rotation reaches agents. */
  ttlMs: number;
}

/** A container's secrets: a few hundred references, each read again a minute later at most. */
export const SECRET_CACHE: SecretCacheSettings = { capacity: 500, ttlMs: 60_000 };

const keyOf = (reference: SecretReference): string =>
  reference.store === "ssm"
    ? `ssm:${reference.parameterName}`
    : `${reference.secretArn}\n${reference.jsonKey ?? ""}`;

/**
 * The store's secrets, each kept in the container's memory for a while once read, so that a fleet downloading
 * the same flow costs the store one read a minute rather than one per agent. Held in memory only; a secret
 * the store does not have is not kept, so one created after the first try is found on the next.
 */
export function cachedSecrets(store: SecretStore, clock: Clock, settings = SECRET_CACHE): SecretStore {
  const entries = new KeptFor<string, string>(settings.capacity, settings.ttlMs);
  return {
    async read(reference) {
      const key = keyOf(reference);
      const now = clock.now();
      const cached = entries.get(key, now);
      if (cached !== undefined) return cached;
      const value = await store.read(reference);
      if (value !== undefined) entries.set(key, value, now);
      return value;
    },
  };
}

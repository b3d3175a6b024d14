import { BeaconError } from "../errors.js";
import type { GuardedCache } from "../guarded-cache.js";
import type { AgentCredential } from "./credentials.js";
import type { CachedRevocation, RevocationCache, RevocationList } from "./ports.js";

export interface RevocationCheck {
  /**
   * Throws certificate_revoked for a revoked certificate. `cached` is what the cache already said
   * (the heartbeat learns it in its one round trip); without it the cache is asked. When the cache
   * does not hold the tenant's list it is loaded from the registry and handed to the cache; when the
   * cache is down the registry answers for this one serial.
   */
  assertNotRevoked(
    credential: AgentCredential,
    cache: GuardedCache,
    cached?: CachedRevocation,
  ): Promise<void>;
}

export function makeRevocationCheck(deps: {
  revocations: RevocationList;
  hotState: RevocationCache;
}): RevocationCheck {
  const { revocations, hotState } = deps;
  return {
    async assertNotRevoked(credential, cache, cached) {
      const { tenant, serialNumber } = credential;
      const verdict = cached ?? (await cache.attempt(() => hotState.revocationOf(tenant, serialNumber)));
      let revoked: boolean;
      if (verdict === "revoked" || verdict === "clear") {
        revoked = verdict === "revoked";
      } else if (verdict === "unknown") {
        const serials = await revocations.revokedSerials(tenant);
        await cache.attempt(() => hotState.rememberRevocations(tenant, serials));
        revoked = serials.includes(serialNumber);
      } else {
        revoked = await revocations.isRevoked(tenant, serialNumber);
      }
      if (revoked) throw new BeaconError("certificate_revoked", "The client certificate has been revoked");
    },
  };
}

import { BeaconError } from "./errors.js";
import type { Clock } from "./ports.js";

export interface GuardedCache {
  /** Runs a cache call; a failure is remembered and answered with undefined, never thrown. */
  attempt<T>(work: () => Promise<T>): Promise<T | undefined>;
  readonly error: unknown;
}

/**
 * What a request that did not call the cache reports as its cache error: the breaker was open, after the
 * cache kept failing other requests of this container.
 */
export class CacheBypassed extends Error {
  constructor() {
    super("cache not called: it kept failing, and the breaker is open");
    this.name = "CacheBypassed";
  }
}

/**
 * The cache is an accelerator, not the truth: after its first failure in a request Beacon stops
 * calling it for that request and answers from the registry; with a breaker, after enough failures of
 * the container's requests, it stops calling it for a while in every request.
 */
export function guardedCache(breaker?: CacheBreaker): GuardedCache {
  let failure: unknown;
  return {
    async attempt(work) {
      if (failure !== undefined) return undefined;
      if (breaker && !breaker.allows()) {
        failure = new CacheBypassed();
        return undefined;
      }
      try {
        const result = await work();
        breaker?.succeeded();
        return result;
      } catch (error) {
        failure = error ?? new Error("cache call failed");
        breaker?.failed();
        return undefined;
      }
    },
    get error() {
      return failure;
    },
  };
}

/**
 * Tells the cache of a change before the change is stored, for what heartbeats read of it only there (an
 * agent's own values, its pin): while the cache is unreachable the change is refused with
 * `cache_unavailable` and nothing is stored, so none goes unseen. `unseen` says what would go unseen.
 */
export async function tellCacheFirst(tell: () => Promise<unknown>, unseen: string): Promise<void> {
  const cache = guardedCache();
  await cache.attempt(tell);
  if (cache.error !== undefined)
    throw new BeaconError("cache_unavailable", `Beacon's cache is unreachable, so ${unseen}; try again`);
}

export interface CacheBreakerSettings {
  /** Failed cache calls within `windowMs` that open the breaker. */
  failuresToOpen: number;
  windowMs: number;
  /** How long an open breaker keeps every request from calling the cache, before one request tries it. */
  coolDownMs: number;
}

/**
 * A container's view of the cache's health, shared by its requests. Closed, every call goes to the cache.
 * `failuresToOpen` failures within a window open it: no request calls the cache until the cool-down is
 * over, so a cache that times out (or a container too busy to read its answers in time) costs each request
 * no wait and no pile of calls bound to fail. Then one call tries the cache: its success closes the breaker,
 * its failure opens it for another cool-down.
 */
export interface CacheBreaker {
  /** Whether a cache call may be made now; true for the one trial call after a cool-down. */
  allows(): boolean;
  succeeded(): void;
  failed(): void;
  readonly state: "closed" | "open" | "trying";
}

export function makeCacheBreaker(
  settings: CacheBreakerSettings,
  clock: Clock,
  onOpen: () => void = () => {},
): CacheBreaker {
  let state: CacheBreaker["state"] = "closed";
  let openedAt = 0;
  // Times of the failures within the window, oldest first.
  let failures: number[] = [];
  const open = () => {
    state = "open";
    openedAt = clock.now();
    failures = [];
    onOpen();
  };
  return {
    allows() {
      if (state === "closed") return true;
      if (state === "trying" || clock.now() - openedAt < settings.coolDownMs) return false;
      state = "trying";
      return true;
    },
    succeeded() {
      if (state === "trying") state = "closed";
    },
    failed() {
      if (state === "trying") return open();
      if (state === "open") return;
      const now = clock.now();
      failures = failures.filter((at) => now - at < settings.windowMs);
      failures.push(now);
      if (failures.length >= settings.failuresToOpen) open();
    },
    get state() {
      return state;
    },
  };
}

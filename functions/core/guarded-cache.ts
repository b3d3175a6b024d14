export interface GuardedCache {
  /** Runs a cache call; a failure is remembered and answered with undefined, never thrown. */
  attempt<T>(work: () => Promise<T>): Promise<T | undefined>;
  readonly error: unknown;
}

/**
 * The cache is an accelerator, not the truth: after its first failure in a request Beacon stops
 * calling it for that request and answers from the registry.
 */
export function guardedCache(): GuardedCache {
  let failure: unknown;
  return {
    async attempt(work) {
      if (failure !== undefined) return undefined;
      try {
        return await work();
      } catch (error) {
        failure = error ?? new Error("cache call failed");
        return undefined;
      }
    },
    get error() {
      return failure;
    },
  };
}

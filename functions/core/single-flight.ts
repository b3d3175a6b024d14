/**
 * Work done once for every caller that asks for it while it is under way: a caller that finds the work of
 * its key under way waits for it instead of doing it again, and gets its outcome, failure included. `first`
 * tells the caller that did the work from those that waited for it.
 */
export function singleFlight<T>(): (
  key: string,
  work: () => Promise<T>,
) => Promise<{ value: T; first: boolean }> {
  const underWay = new Map<string, Promise<T>>();
  return async (key, work) => {
    const pending = underWay.get(key);
    if (pending) return { value: await pending, first: false };
    const started = work();
    underWay.set(key, started);
    try {
      return { value: await started, first: true };
    } finally {
      underWay.delete(key);
    }
  };
}

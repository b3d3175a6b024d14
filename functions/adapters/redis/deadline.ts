export class CacheTimeoutError extends Error {
  constructor(ms: number) {
    super(`The cache did not answer within ${ms} ms`);
    this.name = "CacheTimeoutError";
  }
}

/**
 * `work`, failed with CacheTimeoutError when it has not settled `ms` after it began, but only then. A process
 * too busy to keep up runs its timers late, and Node runs due timers before it reads the sockets: a plain
 * timeout would fail an answer that arrived in time but was not read yet, and send a busy process to DynamoDB
 * for what the cache had answered. So the deadline, once due, first lets the event loop read what arrived.
 */
export function settleWithin<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (settled) return;
          settled = true;
          reject(new CacheTimeoutError(ms));
        }),
      ms,
    );
    work.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** `cache` with each of its calls held to settleWithin's deadline of `ms`. */
export function withDeadline<T extends object>(cache: T, ms: number): T {
  return new Proxy(cache, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => settleWithin(Promise.resolve(value.apply(target, args)), ms);
    },
  });
}

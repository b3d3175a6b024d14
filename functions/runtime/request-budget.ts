import { AsyncLocalStorage } from "node:async_hooks";
import { callSignal } from "../adapters/aws/json-protocol.js";

/** The end of the time a request gives its AWS calls, while the request is under way. */
interface RequestBound {
  /** Epoch milliseconds. */
  readonly until: number;
  underWay: boolean;
}

const bounds = new AsyncLocalStorage<RequestBound>();

/**
 * Runs `work` with the calls a client made by boundedByRequest sends for it given up at `until` (epoch
 * milliseconds): a call under way then is aborted, retries and all, and one begun after fails at once. Only
 * while `work` is under way: what it leaves running once it settles (a stream put that goes on after the answer,
 * and what follows it) waits as long as the client's own timeouts let it.
 */
export async function withinRequestBudget<T>(until: number, work: () => Promise<T>): Promise<T> {
  const bound: RequestBound = { until, underWay: true };
  try {
    return await bounds.run(bound, work);
  } finally {
    bound.underWay = false;
  }
}

/**
 * `client` with each `send` made within withinRequestBudget given an abort signal for what is left of the
 * request's time; sends outside it are left to the client's timeouts. The SDK neither retries an aborted call
 * nor waits out a backoff past the signal.
 */
export function boundedByRequest<T extends object>(client: T): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      // Calls sent without `send` (adapters/aws/json-protocol.ts) ask for their signal.
      if (property === callSignal) return signalNow;
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== "send" || typeof value !== "function") return value;
      return (command: unknown, options?: unknown, callback?: unknown) => {
        // A callback in place of the options: a call made so takes no signal.
        const deadline = typeof options === "function" ? undefined : signalNow();
        if (!deadline) return value.call(target, command, options, callback);
        const given = (options as { abortSignal?: AbortSignal } | undefined)?.abortSignal;
        const abortSignal = given ? AbortSignal.any([given, deadline]) : deadline;
        return value.call(target, command, { ...(options as object | undefined), abortSignal }, callback);
      };
    },
  });
}

/** What is left of the request's time as a signal, for a call made now within withinRequestBudget. */
function signalNow(): AbortSignal | undefined {
  const bound = bounds.getStore();
  if (!bound?.underWay) return undefined;
  const left = bound.until - Date.now();
  return left > 0
    ? AbortSignal.timeout(left)
    : AbortSignal.abort(new DOMException("Past the request's deadline", "TimeoutError"));
}

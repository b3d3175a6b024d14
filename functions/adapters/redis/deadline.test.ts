import { describe, expect, it } from "vitest";
import { CacheTimeoutError, settleWithin, withDeadline } from "./deadline.js";

/** Keeps the event loop from its timers and sockets, as a container too busy to keep up does. */
function busyFor(ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

describe("a cache call's deadline", () => {
  it("fails a call that has not answered when it is due", async () => {
    await expect(settleWithin(new Promise(() => {}), 1)).rejects.toBeInstanceOf(CacheTimeoutError);
  });

  it("takes an answer that arrived while the process was too busy to read it before the deadline", async () => {
    // The answer is due from a socket-like source (an immediate after I/O) that the busy process reads late.
    const answer = new Promise<string>((resolve) => setTimeout(() => setImmediate(() => resolve("hit")), 0));
    const call = settleWithin(answer, 5);
    busyFor(20);
    await expect(call).resolves.toBe("hit");
  });

  it("holds every method of an object to it, passing answers and failures through", async () => {
    const cache = {
      revocationOf: async (serial: string) => `clear ${serial}`,
      markRegistered: async () => {
        throw new Error("Connection is closed.");
      },
      stalled: () => new Promise<void>(() => {}),
    };
    const bound = withDeadline(cache, 1);
    await expect(bound.revocationOf("3A5F")).resolves.toBe("clear 3A5F");
    await expect(bound.markRegistered()).rejects.toThrow("Connection is closed.");
    await expect(bound.stalled()).rejects.toBeInstanceOf(CacheTimeoutError);
  });
});

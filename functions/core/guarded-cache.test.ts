import { describe, expect, it } from "vitest";
import { CacheBypassed, guardedCache, makeCacheBreaker } from "./guarded-cache.js";

const settings = { failuresToOpen: 3, windowMs: 1_000, coolDownMs: 5_000 };

function harness() {
  const clock = { at: 0, now: () => clock.at };
  let openings = 0;
  const breaker = makeCacheBreaker(settings, clock, () => openings++);
  let calls = 0;
  /** One request's cache call, which the cache answers or fails. */
  const request = async (cacheAnswers: boolean) => {
    const cache = guardedCache(breaker);
    const answer = await cache.attempt(async () => {
      calls++;
      if (!cacheAnswers) throw new Error("Command timed out");
      return "hit";
    });
    return { answer, error: cache.error };
  };
  return { clock, breaker, request, calls: () => calls, openings: () => openings };
}

describe("the cache breaker", () => {
  it("opens after enough failures within the window, and then no request calls the cache", async () => {
    const { breaker, request, calls, openings } = harness();
    await request(false);
    await request(false);
    expect(breaker.state).toBe("closed");
    await request(false);
    expect(breaker.state).toBe("open");
    expect(openings()).toBe(1);

    const bypassed = await request(true);
    expect(bypassed.answer).toBeUndefined();
    expect(bypassed.error).toBeInstanceOf(CacheBypassed);
    expect(calls()).toBe(3);
  });

  it("stays closed for failures spread wider than the window", async () => {
    const { clock, breaker, request } = harness();
    for (let index = 0; index < 10; index++) {
      await request(false);
      clock.at += 600;
    }
    expect(breaker.state).toBe("closed");
  });

  it("lets one request try the cache after the cool-down, and closes when it answers", async () => {
    const { clock, breaker, request, calls } = harness();
    for (let index = 0; index < 3; index++) await request(false);
    clock.at += settings.coolDownMs - 1;
    expect((await request(true)).error).toBeInstanceOf(CacheBypassed);
    clock.at += 1;
    expect(breaker.allows()).toBe(true);
    // While that one tries, the others still do without the cache.
    expect(breaker.allows()).toBe(false);
    breaker.succeeded();
    expect(await request(true)).toEqual({ answer: "hit", error: undefined });
    expect(calls()).toBe(4);
  });

  it("opens for another cool-down when the trial fails", async () => {
    const { clock, breaker, request, openings } = harness();
    for (let index = 0; index < 3; index++) await request(false);
    clock.at += settings.coolDownMs;
    expect((await request(false)).error).toBeInstanceOf(Error);
    expect(breaker.state).toBe("open");
    expect(openings()).toBe(2);
    clock.at += settings.coolDownMs - 1;
    expect((await request(true)).error).toBeInstanceOf(CacheBypassed);
    clock.at += 1;
    expect((await request(true)).answer).toBe("hit");
    expect(breaker.state).toBe("closed");
  });
});

describe("a request's guarded cache", () => {
  it("stops calling the cache after its first failure, breaker or not", async () => {
    const cache = guardedCache();
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new Error("Connection is closed.");
    };
    await cache.attempt(failing);
    expect(await cache.attempt(async () => "hit")).toBeUndefined();
    expect(calls).toBe(1);
    expect(cache.error).toEqual(new Error("Connection is closed."));
  });
});

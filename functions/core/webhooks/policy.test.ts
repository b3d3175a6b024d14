import { describe, expect, it } from "vitest";
import type { Delivery } from "./model.js";
import {
  abandoned,
  afterAttempt,
  disableReasonOf,
  RETRY_DELAYS_MS,
  RETRY_WINDOW_MS,
  retryDelay,
  verdictOf,
} from "./policy.js";

const CREATED = Date.UTC(2026, 10, 24);
const pending: Delivery = {
  tenant: "acme",
  subscriptionId: "sub-1",
  deliveryId: "event-1",
  notificationType: "agent.offline",
  body: "{}",
  createdAt: CREATED,
  state: "pending",
  attempts: 0,
  nextAttemptAt: CREATED,
};
const MIDDLE = 0.5;

describe("what an answer means", () => {
  it.each([
    [200, "delivered"],
    [204, "delivered"],
    [299, "delivered"],
    [410, "gone"],
    [301, "retry"],
    [400, "retry"],
    [429, "retry"],
    [500, "retry"],
    [undefined, "retry"],
  ] as const)("HTTP %s is %s", (status, verdict) => {
    expect(verdictOf({ status })).toBe(verdict);
  });
});

describe("the waits between attempts", () => {
  it("grow from 30 seconds to 4 hours, then stay there", () => {
    const waits = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20].map((attempts) => retryDelay(attempts, MIDDLE));
    expect(waits).toEqual([
      30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 14_400_000,
      14_400_000,
    ]);
  });

  it("are drawn within 10% either side of their step", () => {
    expect(retryDelay(1, 0)).toBe(27_000);
    expect(retryDelay(1, 0.999_999)).toBe(33_000);
    expect(retryDelay(9, 0)).toBe(0.9 * (RETRY_DELAYS_MS.at(-1) as number));
  });
});

describe("a delivery after an attempt", () => {
  it("is delivered on a 2xx, its attempt logged and nothing more due", () => {
    const next = afterAttempt(pending, { status: 204, durationMs: 40 }, CREATED + 5, MIDDLE);
    expect(next).toEqual({
      ...pending,
      nextAttemptAt: undefined,
      state: "delivered",
      attempts: 1,
      lastAttempt: { at: CREATED + 5, status: 204, durationMs: 40 },
    });
    expect("nextAttemptAt" in next).toBe(false);
  });

  it("is due again after the next wait when it failed, with or without an answer", () => {
    const first = afterAttempt(pending, { status: 503, durationMs: 40 }, CREATED, MIDDLE);
    expect(first).toMatchObject({ state: "pending", attempts: 1, nextAttemptAt: CREATED + 30_000 });
    const second = afterAttempt(first, { error: "timed out", durationMs: 5_000 }, CREATED + 30_000, MIDDLE);
    expect(second).toMatchObject({
      state: "pending",
      attempts: 2,
      nextAttemptAt: CREATED + 90_000,
      lastAttempt: { at: CREATED + 30_000, error: "timed out", durationMs: 5_000 },
    });
  });

  it("is tried about 15 times over 24 hours, the last at the window's end, then given up", () => {
    let delivery = pending;
    const attemptTimes: number[] = [];
    while (delivery.state === "pending") {
      const at = delivery.nextAttemptAt as number;
      attemptTimes.push(at - CREATED);
      delivery = afterAttempt(delivery, { status: 500, durationMs: 10 }, at, MIDDLE);
    }
    expect(delivery).toMatchObject({ state: "failed", attempts: attemptTimes.length });
    expect(attemptTimes).toHaveLength(15);
    expect(attemptTimes.at(-1)).toBe(RETRY_WINDOW_MS);
    expect(attemptTimes.at(-2)).toBeLessThan(RETRY_WINDOW_MS);
  });

  it("is given up at once on 410 Gone, and so is an event older than the window", () => {
    expect(afterAttempt(pending, { status: 410, durationMs: 3 }, CREATED, MIDDLE).state).toBe("failed");
    const stale = afterAttempt(pending, { status: 500, durationMs: 3 }, CREATED + RETRY_WINDOW_MS, MIDDLE);
    expect(stale.state).toBe("failed");
  });

  it("is given up unsent when its subscription went away", () => {
    expect(abandoned(pending, CREATED + 1, "The subscription was deleted")).toEqual({
      ...pending,
      nextAttemptAt: undefined,
      state: "failed",
      lastAttempt: { at: CREATED + 1, error: "The subscription was deleted", durationMs: 0 },
    });
  });
});

describe("when a subscription is disabled", () => {
  const givenUp = afterAttempt(
    { ...pending, attempts: 14, nextAttemptAt: CREATED + RETRY_WINDOW_MS },
    { status: 502, durationMs: 9 },
    CREATED + RETRY_WINDOW_MS,
    MIDDLE,
  );

  it("is when a delivery was given up and none succeeded since its event", () => {
    expect(disableReasonOf(givenUp, undefined)).toBe(
      "No delivery succeeded for 24 hours; the last attempt got HTTP 502",
    );
    expect(disableReasonOf(givenUp, CREATED - 1)).toBeDefined();
    const unanswered = {
      ...givenUp,
      lastAttempt: { at: CREATED, error: "connection refused", durationMs: 1 },
    };
    expect(disableReasonOf(unanswered, undefined)).toMatch(/got connection refused$/);
  });

  it("is not when the receiver took another delivery meanwhile, nor while the delivery is pending", () => {
    expect(disableReasonOf(givenUp, CREATED + 3_600_000)).toBeUndefined();
    expect(disableReasonOf(pending, undefined)).toBeUndefined();
  });

  it("is at once when the receiver answered 410 Gone, whatever it took before", () => {
    const gone = afterAttempt(pending, { status: 410, durationMs: 3 }, CREATED, MIDDLE);
    expect(disableReasonOf(gone, CREATED + 1)).toBe("The receiver answered 410 Gone");
  });
});

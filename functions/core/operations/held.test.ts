import { describe, expect, it } from "vitest";
import { heldChange } from "./held.js";

const NOW = Date.UTC(2026, 10, 21);
const HOUR = 3_600_000;
const held = { state: "queued" as const, notBefore: NOW + 2 * HOUR };
const closedUntil = (nextOpening?: number) => ({ of: ["class pumps", "group night"], nextOpening });

describe("a held operation after a change of its agent's windows", () => {
  it("is released now when they are open, or the agent has none left", () => {
    expect(heldChange(held, undefined, NOW)).toEqual({ notBefore: NOW });
  });

  it("waits for their next opening when it moved, earlier or later, and stays as it is when it did not", () => {
    expect(heldChange(held, closedUntil(NOW + HOUR), NOW)).toEqual({ notBefore: NOW + HOUR });
    expect(heldChange(held, closedUntil(NOW + 5 * HOUR), NOW)).toEqual({ notBefore: NOW + 5 * HOUR });
    expect(heldChange(held, closedUntil(NOW + 2 * HOUR), NOW)).toBeUndefined();
  });

  it("is cancelled, saying why, when they never open together", () => {
    expect(heldChange(held, closedUntil(), NOW)).toEqual({
      cancel:
        "The maintenance windows changed: the maintenance windows of class pumps and group night are never open together",
    });
  });

  it("is left alone once released or no longer queued: it is not held any more", () => {
    expect(heldChange({ state: "queued", notBefore: NOW }, closedUntil(NOW + HOUR), NOW)).toBeUndefined();
    expect(heldChange({ state: "queued" }, closedUntil(NOW + HOUR), NOW)).toBeUndefined();
    expect(heldChange({ ...held, state: "delivered" }, closedUntil(NOW + HOUR), NOW)).toBeUndefined();
  });
});

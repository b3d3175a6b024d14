import { describe, expect, it } from "vitest";
import {
  CHECKPOINT_JITTER,
  checkpointIntervalOf,
  longestCheckpointIntervalMs,
} from "./checkpoint-interval.js";

const INTERVAL_MS = 600_000;
const fleet = (size: number) =>
  Array.from({ length: size }, (_, index) => `${String(index).padStart(8, "0")}-b9fe-11ef-a0c0-10f60a596f64`);

describe("an agent's checkpoint interval", () => {
  it("is the same for the same agent, and within the jitter of the configured one", () => {
    for (const agentId of fleet(5_000)) {
      const interval = checkpointIntervalOf(agentId, INTERVAL_MS);
      expect(checkpointIntervalOf(agentId, INTERVAL_MS)).toBe(interval);
      expect(interval).toBeGreaterThanOrEqual(INTERVAL_MS * (1 - CHECKPOINT_JITTER));
      expect(interval).toBeLessThanOrEqual(longestCheckpointIntervalMs(INTERVAL_MS));
    }
    expect(longestCheckpointIntervalMs(INTERVAL_MS)).toBe(720_000);
  });

  it("spreads ids that differ in one character evenly over the whole range", () => {
    const tenths = new Array<number>(10).fill(0);
    const ids = fleet(10_000);
    for (const agentId of ids) {
      const share = (checkpointIntervalOf(agentId, INTERVAL_MS) / INTERVAL_MS - 1) / CHECKPOINT_JITTER;
      const tenth = Math.min(9, Math.floor(((share + 1) / 2) * 10));
      tenths[tenth] = (tenths[tenth] ?? 0) + 1;
    }
    for (const count of tenths) expect(count / ids.length).toBeGreaterThan(0.08);
    for (const count of tenths) expect(count / ids.length).toBeLessThan(0.12);
  });

  it("spreads the first checkpoints of a fleet that started together over four minutes", () => {
    const perMinute = new Map<number, number>();
    const ids = fleet(10_000);
    for (const agentId of ids) {
      const minute = Math.floor(checkpointIntervalOf(agentId, INTERVAL_MS) / 60_000);
      perMinute.set(minute, (perMinute.get(minute) ?? 0) + 1);
    }
    expect([...perMinute.keys()].sort((a, b) => a - b)).toEqual([8, 9, 10, 11]);
    for (const count of perMinute.values()) expect(count / ids.length).toBeLessThan(0.3);
  });
});

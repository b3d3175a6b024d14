import { describe, expect, it } from "vitest";
import { AgentAnswerBudget, answerDeadlines } from "./answer-budget.js";

const start = 1_700_000_000_000;
const invocationTimeout = 10_000;

describe("an agent request's deadlines", () => {
  it("give each backend its share from the request's start, in a fresh invocation", () => {
    expect(answerDeadlines(start, start + invocationTimeout)).toEqual({
      storageBy: start + 1_500,
      streamBy: start + 1_000,
    });
  });

  it("keep the invocation's margin when the invocation has less left than the shares", () => {
    const invocationEnd = start + 2_200;
    expect(answerDeadlines(start, invocationEnd)).toEqual({
      storageBy: start + 1_200,
      streamBy: start + 1_000,
    });
    expect(answerDeadlines(start, start + 1_500)).toEqual({ storageBy: start + 500, streamBy: start + 500 });
  });

  it("leave, after the storage share, time for a failed cache call and the answer within the budget", () => {
    const { storageMs, streamMs, cacheCallMs, answerMs } = AgentAnswerBudget;
    expect(streamMs).toBeLessThanOrEqual(storageMs);
    expect(storageMs + cacheCallMs).toBeLessThan(answerMs);
    // MiNiFi Java's read timeout, with the network's share and a loaded host's to spare.
    expect(answerMs).toBeLessThanOrEqual(5_000 / 2);
  });
});

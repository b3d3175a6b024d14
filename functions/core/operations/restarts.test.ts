import { describe, expect, it } from "vitest";
import { restartDeadlineOf, restartsAgent } from "./restarts.js";

describe("operations that restart the agent", () => {
  it("are UPDATE PROPERTIES (both agents) and RESTART (MiNiFi C++), nothing else", () => {
    expect(restartsAgent({ operation: "UPDATE", operand: "PROPERTIES" })).toBe(true);
    expect(restartsAgent({ operation: "RESTART" })).toBe(true);
    expect(restartsAgent({ operation: "RESTART", operand: "" })).toBe(true);
    for (const operation of [
      { operation: "UPDATE", operand: "CONFIGURATION" },
      { operation: "UPDATE", operand: "ASSET" },
      { operation: "STOP", operand: "FLOW" },
      // SIGTERM: the agent stops, and nothing brings it back.
      { operation: "STOP", operand: "C2" },
      { operation: "PAUSE" },
      { operation: "DESCRIBE", operand: "MANIFEST" },
    ])
      expect(restartsAgent(operation), `${operation.operation} ${operation.operand ?? ""}`).toBe(false);
  });

  it("should be over by the latest acknowledgement deadline of those a reply delivers", () => {
    expect(restartDeadlineOf([])).toBeUndefined();
    expect(
      restartDeadlineOf([
        { operation: "UPDATE", operand: "CONFIGURATION", timeoutAt: 9_000 },
        { operation: "DESCRIBE", operand: "MANIFEST", timeoutAt: 8_000 },
      ]),
    ).toBeUndefined();
    expect(
      restartDeadlineOf([
        { operation: "UPDATE", operand: "PROPERTIES", timeoutAt: 5_000 },
        { operation: "UPDATE", operand: "CONFIGURATION", timeoutAt: 9_000 },
        { operation: "RESTART", timeoutAt: 7_000 },
      ]),
    ).toBe(7_000);
  });
});

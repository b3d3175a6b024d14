import { describe, expect, it } from "vitest";
import { agentOfOperation, isValidOperationId, newOperationId, operationIdOf } from "./ids.js";

describe("operation ids", () => {
  const ids = { newId: () => "0b7c9e64-7e0c-4f0a-9d55-2f3c1b2a9e11" };

  it("name their agent after the last ~, sort by creation time, and stay within 256 characters", () => {
    const longest = "a".repeat(128);
    const id = newOperationId(1_700_000_000_000, ids, longest);
    expect(id).toBe(`op-1700000000000-0b7c9e64-7e0c-4f0a-9d55-2f3c1b2a9e11~${longest}`);
    expect(id.length).toBeLessThanOrEqual(256);
    expect(isValidOperationId(id)).toBe(true);
    expect(agentOfOperation(id)).toBe(longest);
    expect(newOperationId(999, ids, "b") < newOperationId(1_000, ids, "a")).toBe(true);
    expect(agentOfOperation(operationIdOf("describe-1", "edge:gw@site-1.a"))).toBe("edge:gw@site-1.a");
  });

  it("name no agent when Beacon did not make them", () => {
    expect(agentOfOperation("op-0000000000000-unknown")).toBeUndefined();
    expect(agentOfOperation("op-1~")).toBeUndefined();
    expect(agentOfOperation("op-1~not/an agent")).toBeUndefined();
    expect(isValidOperationId("op/../1")).toBe(false);
    expect(isValidOperationId("x".repeat(257))).toBe(false);
  });
});

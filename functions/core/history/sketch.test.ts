import { describe, expect, it } from "vitest";
import {
  addAgent,
  emptySketch,
  estimateAgents,
  mergeSketch,
  SKETCH_REGISTERS,
  sketchFromBytes,
  sketchToBytes,
} from "./sketch.js";

const sketchOf = (agentIds: string[]) => {
  const sketch = emptySketch();
  for (const agentId of agentIds) addAgent(sketch, agentId);
  return sketch;
};
const agents = (count: number, prefix = "agent") =>
  Array.from({ length: count }, (_, index) => `${prefix}-${index}`);

describe("the distinct agents sketch", () => {
  it("counts a small class exactly, however often its agents are added", () => {
    const sketch = sketchOf([...agents(12), ...agents(12)]);
    expect(estimateAgents(sketch)).toBe(12);
    expect(estimateAgents(emptySketch())).toBe(0);
  });

  // Three standard errors: these ids land 2.7 of them off at 2,000, which a fixed set of ids keeps.
  it.each([500, 2_000, 100_000])("counts %i agents within 10 %", (count) => {
    expect(Math.abs(estimateAgents(sketchOf(agents(count))) / count - 1)).toBeLessThan(0.1);
  });

  it("merges into the union, and merging again changes nothing", () => {
    const union = sketchOf(agents(300, "a"));
    mergeSketch(union, sketchOf(agents(200, "b")));
    const twice = Uint8Array.from(union);
    mergeSketch(twice, sketchOf(agents(200, "b")));
    expect(twice).toEqual(union);
    expect(union).toEqual(sketchOf([...agents(300, "a"), ...agents(200, "b")]));
  });

  it("is stored as two bytes per set register while few are set, whole after", () => {
    const small = sketchOf(agents(12));
    expect(sketchToBytes(small)).toHaveLength(24);
    expect(sketchFromBytes(sketchToBytes(small))).toEqual(small);
    const large = sketchOf(agents(5_000));
    expect(sketchToBytes(large)).toHaveLength(SKETCH_REGISTERS);
    expect(sketchFromBytes(sketchToBytes(large))).toEqual(large);
    expect(sketchFromBytes(undefined)).toEqual(emptySketch());
  });
});

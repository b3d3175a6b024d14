import { describe, expect, it } from "vitest";
import { allListed, noneSkipped, skippedView, withSkipped } from "./skipped.js";

const agents = (count: number, from = 0) =>
  Array.from({ length: count }, (_, index) => ({ agentId: `a-${from + index}`, reason: "no" }));

describe("skipped agents", () => {
  it("counts every one and names the first ones up to the bound", () => {
    const skipped = [agents(3), agents(4, 3)].reduce(
      (sofar, more) => withSkipped(sofar, more, 5),
      noneSkipped,
    );
    expect(skipped.count).toBe(7);
    expect(skipped.listed).toEqual(agents(5));
    expect(allListed(skipped)).toBe(false);
    expect(allListed(withSkipped(noneSkipped, agents(2), 5))).toBe(true);
  });

  it("shows as the answers show them: those named, then how many", () => {
    expect(JSON.stringify(skippedView(withSkipped(noneSkipped, agents(1), 5)))).toBe(
      '{"skipped":[{"agentId":"a-0","reason":"no"}],"skippedCount":1}',
    );
  });
});

import { describe, expect, it } from "vitest";
import type { FlowParameter } from "../flows/parameters.js";
import { targetFlowIdOf } from "../flows/policy.js";
import { renderingOf, withRenderings, withStagedRendering } from "../parameters/rendered-flow-ids.js";
import { valuesWithChanges } from "../parameters/staging.js";
import { valueMemberFlowIds, valueRenderings } from "./value-decisions.js";

const V1 = "a".repeat(64);
const declared: FlowParameter[] = [
  { name: "kafka.brokers", sensitive: false, default: "localhost:9092" },
  { name: "site", sensitive: false },
];
const version = { hash: V1, parameters: declared };
const record = (name: string, value: string) => ({
  name,
  value: { value },
  updatedAt: 1,
  updatedBy: "alice",
});
const inForce = [record("kafka.brokers", "b1:9092"), record("site", "plant")];

describe("a rollout of a class's staged values", () => {
  const staged = (...changes: Parameters<typeof valuesWithChanges>[1]) =>
    valueRenderings(version, inForce, valuesWithChanges(inForce, changes));
  const renderings = staged(record("kafka.brokers", "b2:9092"));
  if (!renderings) throw new Error("a change of a declared parameter renders the version anew");

  it("goes from the target version rendered with the values in force to it rendered with the changes", () => {
    expect(renderings.from).toEqual(renderingOf(version, inForce));
    expect(renderings.to).toEqual(
      renderingOf(version, [record("kafka.brokers", "b2:9092"), record("site", "plant")]),
    );
    expect(renderings.to.hash).toBe(V1);
    expect(renderings.to.flowId).not.toBe(renderings.from.flowId);
  });

  it("has nothing to roll out for changes that render the version alike, or a version declaring none", () => {
    expect(staged(record("undeclared", "x"))).toBeUndefined();
    expect(staged(record("site", "plant"))).toBeUndefined();
    expect(valueRenderings({ hash: V1 }, inForce, [record("site", "other")])).toBeUndefined();
    expect(staged({ name: "site", updatedAt: 2, updatedBy: "bob" })).toBeDefined();
  });

  it("moves only agents whose rendered flow changes: not one whose own value overrides the change", () => {
    const moved = valueMemberFlowIds(renderings, new Map());
    expect(moved).toEqual({ from: renderings.from.flowId, to: renderings.to.flowId });
    const ownSite = valueMemberFlowIds(renderings, new Map([["site", { value: "plant-7" }]]));
    expect(ownSite?.from).not.toBe(renderings.from.flowId);
    expect(ownSite?.to).not.toBe(ownSite?.from);
    expect(
      valueMemberFlowIds(renderings, new Map([["kafka.brokers", { value: "own:9092" }]])),
    ).toBeUndefined();
  });

  it("has catch-up accept both renderings while it runs, the one in force still the target", () => {
    const cached = withRenderings({ target: V1, accepted: [V1] }, [renderings.from]);
    const running = withStagedRendering(cached, renderings.to);
    expect(running.target).toBe(V1);
    expect(running.accepted).toEqual([renderings.from.flowId, renderings.to.flowId]);
    expect(running.renderings).toEqual([renderings.from, renderings.to]);
    expect(targetFlowIdOf(running)).toBe(renderings.from.flowId);
    expect(withStagedRendering(running, renderings.to)).toEqual(running);
  });
});

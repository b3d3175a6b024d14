import { describe, expect, it } from "vitest";
import { labelTermsOf, rolloutTargetOf } from "../src/rollout-target.js";

const fields = { kind: "class", group: "", labels: "", continuous: false } as const;

describe("the target of a new rollout, as its form says it", () => {
  it("is the whole class, never continuous, whatever the other fields hold", () => {
    expect(rolloutTargetOf({ ...fields, group: "edge", labels: "site=plant-7", continuous: true })).toEqual(
      {},
    );
  });

  it("names a group, continuous when checked", () => {
    expect(rolloutTargetOf({ ...fields, kind: "group", group: " edge " })).toEqual({ group: "edge" });
    expect(rolloutTargetOf({ ...fields, kind: "group", group: "edge", continuous: true })).toEqual({
      group: "edge",
      continuous: true,
    });
  });

  it("selects by label terms, commas between, continuous when checked", () => {
    expect(
      rolloutTargetOf({ ...fields, kind: "selector", labels: " site=plant-7 , gpu,,", continuous: true }),
    ).toEqual({ selector: { labels: ["site=plant-7", "gpu"] }, continuous: true });
  });

  it("says what is missing when the group or the labels are", () => {
    expect(() => rolloutTargetOf({ ...fields, kind: "group", group: " " })).toThrow("Choose the group");
    expect(() => rolloutTargetOf({ ...fields, kind: "selector", labels: " , " })).toThrow(
      "Name at least one label term",
    );
  });
});

describe("label terms", () => {
  it("keep a term's empty value and drop empty terms", () => {
    expect(labelTermsOf("tier=, example.com/rack=r12")).toEqual(["tier=", "example.com/rack=r12"]);
    expect(labelTermsOf("")).toEqual([]);
  });
});

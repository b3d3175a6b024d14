import { describe, expect, it } from "vitest";
import {
  changesNothing,
  isLabelKey,
  isLabelValue,
  labelsAfter,
  MAX_LABELS,
  matchesLabels,
  parseLabelSelector,
  validateLabelChange,
} from "./labels.js";

describe("label keys and values", () => {
  it("takes names as Kubernetes does, optionally after a DNS prefix", () => {
    for (const key of [
      "site",
      "Site_2",
      "a",
      "rack.row-3",
      "example.com/site",
      "a.b-c.d/x",
      `${"k".repeat(63)}`,
    ])
      expect(isLabelKey(key), key).toBe(true);
    for (const key of [
      "",
      "-site",
      "site-",
      "si te",
      "site=1",
      "sité",
      "Example.com/site",
      "example.com/",
      "/site",
      "a/b/c",
      "k".repeat(64),
      `${"p".repeat(63)}.${"p".repeat(63)}.${"p".repeat(63)}.${"p".repeat(63)}/site`,
      "__proto__",
    ])
      expect(isLabelKey(key), key).toBe(false);
  });

  it("takes an empty value or a name", () => {
    for (const value of ["", "plant-7", "v1.2_3", "v".repeat(63)])
      expect(isLabelValue(value), value).toBe(true);
    for (const value of ["-x", "x-", "a/b", "a,b", "a=b", "v".repeat(64), " "])
      expect(isLabelValue(value), value).toBe(false);
  });
});

describe("a change of labels", () => {
  it("is refused with the key or value at fault, empty, or setting a key it removes", () => {
    expect(() => validateLabelChange({})).toThrow(/Name labels to set or to remove/);
    expect(() => validateLabelChange({ set: {}, remove: [] })).toThrow(/Name labels/);
    expect(() => validateLabelChange({ set: { "bad key": "x" } })).toThrow(/Label key "bad key" is not/);
    expect(() => validateLabelChange({ set: { site: "plant 7" } })).toThrow(
      /Label "site" has value "plant 7", which is not/,
    );
    expect(() => validateLabelChange({ remove: ["-rack"] })).toThrow(/Label key "-rack"/);
    expect(() => validateLabelChange({ set: { site: "a" }, remove: ["site"] })).toThrow(
      /"site" is both set and removed/,
    );
    expect(() => validateLabelChange({ set: { site: "plant-7", gpu: "" }, remove: ["rack"] })).not.toThrow();
  });

  it("sets and removes keys, leaving the others, and is refused past the limit", () => {
    expect(
      labelsAfter({ site: "a", rack: "3" }, { set: { site: "b", zone: "n" }, remove: ["rack", "x"] }),
    ).toEqual({ site: "b", zone: "n" });
    expect(labelsAfter(undefined, { remove: ["rack"] })).toEqual({});
    const full = Object.fromEntries(Array.from({ length: MAX_LABELS }, (_, index) => [`k${index}`, "v"]));
    expect(labelsAfter(full, { set: { k0: "w" } })).toEqual({ ...full, k0: "w" });
    expect(labelsAfter(full, { set: { more: "v" } })).toBeUndefined();
    expect(labelsAfter(full, { set: { more: "v" }, remove: ["k1"] })).toHaveProperty("more", "v");
  });

  it("tells a change that leaves the labels as they were", () => {
    expect(changesNothing(undefined, {})).toBe(true);
    expect(changesNothing({ site: "a" }, { site: "a" })).toBe(true);
    expect(changesNothing({ site: "a" }, { site: "b" })).toBe(false);
    expect(changesNothing({ site: "a" }, { site: "a", zone: "" })).toBe(false);
    expect(changesNothing({ site: "a", zone: "" }, { site: "a" })).toBe(false);
  });
});

describe("a label selector", () => {
  it("reads key=value and key terms, and refuses a malformed one with its key or value", () => {
    expect(parseLabelSelector(["site=plant-7", "example.com/gpu", "zone="])).toEqual([
      { key: "site", value: "plant-7" },
      { key: "example.com/gpu" },
      { key: "zone", value: "" },
    ]);
    expect(() => parseLabelSelector(["=x"])).toThrow(/Label key "" is not/);
    expect(() => parseLabelSelector(["site=a=b"])).toThrow(/Label "site" has value "a=b"/);
  });

  it("matches labels that meet every term", () => {
    const labels = { site: "plant-7", gpu: "", zone: "north" };
    const match = (...terms: string[]) => matchesLabels(labels, parseLabelSelector(terms));
    expect(match("site=plant-7")).toBe(true);
    expect(match("site=plant-7", "gpu")).toBe(true);
    expect(match("gpu=")).toBe(true);
    expect(match("zone=")).toBe(false);
    expect(match("site=plant-7", "rack")).toBe(false);
    expect(match("site=plant-8")).toBe(false);
    expect(match("constructor")).toBe(false);
    expect(matchesLabels(undefined, parseLabelSelector(["site"]))).toBe(false);
    expect(matchesLabels(undefined, [])).toBe(true);
  });
});

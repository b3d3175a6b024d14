import { describe, expect, it } from "vitest";
import { KeptFor, RecentlyUsed } from "./recently-used.js";

describe("RecentlyUsed", () => {
  it("forgets the least recently used entry beyond its capacity, a read or a find counting as a use", () => {
    const entries = new RecentlyUsed<string, number>(2);
    entries.set("a", 1);
    entries.set("b", 2);
    expect(entries.get("a")).toBe(1);
    entries.set("c", 3);
    expect(entries.get("b")).toBeUndefined();
    expect(entries.find((value) => value === 1)).toBe(1);
    entries.set("d", 4);
    expect([entries.get("a"), entries.get("c"), entries.get("d")]).toEqual([1, undefined, 4]);
  });

  it("finds the most recently used of the values that match, and deletes an entry", () => {
    const entries = new RecentlyUsed<string, number>(3);
    entries.set("a", 10);
    entries.set("b", 20);
    entries.set("c", 11);
    expect(entries.find((value) => value < 15)).toBe(11);
    entries.delete("c");
    expect(entries.find((value) => value < 15)).toBe(10);
    expect(entries.get("c")).toBeUndefined();
  });
});

describe("KeptFor", () => {
  it("serves a copy until its time is up, then not, until it is set again", () => {
    const copies = new KeptFor<string, string[]>(10, 60_000);
    copies.set("tenant-a", ["pumps"], 1_000);
    expect(copies.get("tenant-a", 1_000)).toEqual(["pumps"]);
    expect(copies.get("tenant-a", 60_999)).toEqual(["pumps"]);
    expect(copies.get("tenant-a", 61_000)).toBeUndefined();
    copies.set("tenant-a", [], 61_000);
    expect(copies.get("tenant-a", 61_001)).toEqual([]);
  });

  it("serves no copy once forgotten, and keeps at most its capacity", () => {
    const copies = new KeptFor<string, number>(2, 60_000);
    copies.set("a", 0, 0);
    copies.forget("a");
    expect(copies.get("a", 1)).toBeUndefined();
    copies.set("a", 1, 0);
    copies.set("b", 2, 0);
    copies.set("c", 3, 0);
    expect([copies.get("a", 1), copies.get("b", 1), copies.get("c", 1)]).toEqual([undefined, 2, 3]);
  });

  it("serves no copy at all once all are forgotten, and serves those set after", () => {
    const copies = new KeptFor<string, number>(10, 60_000);
    copies.set("a", 1, 0);
    copies.set("b", 2, 0);
    copies.forgetAll();
    expect([copies.get("a", 1), copies.get("b", 1)]).toEqual([undefined, undefined]);
    copies.set("a", 3, 1);
    expect(copies.get("a", 2)).toBe(3);
  });
});

import { expect, it } from "vitest";
import type { AssetRecord } from "../../core/assets/model.js";
import type { AssetCatalog, ResourceSetStore } from "../../core/assets/ports.js";
import { type ResourceSet, resourceSetOf } from "../../core/assets/resource-set.js";
import { contract } from "./contract.js";

export interface ResourceSetsSubject {
  assets: AssetCatalog;
  sets: ResourceSetStore;
}

const assetOf = (digit: string): AssetRecord => ({
  assetId: digit.repeat(64),
  name: `asset-${digit}.bin`,
  sizeBytes: 1,
  contentType: "application/octet-stream",
  createdAt: 0,
  createdBy: "alice",
});

const setOf = (className: string, digits: string[], updatedAt: number): ResourceSet => ({
  className,
  ...resourceSetOf(
    digits.map((digit) => ({ assetId: digit.repeat(64), name: `asset-${digit}.bin`, path: "" })),
  ),
  updatedAt,
  updatedBy: "alice",
});

/** Each class's set, replaced as a whole only over the one read before, marking the assets it holds as used. */
export const resourceSetsContract = contract<ResourceSetsSubject>("the resource set store", (the) => {
  it("replaces a set over the one read before, and marks the assets each class holds, as delete sees them", async () => {
    const { assets, sets } = the.subject;
    for (const digit of ["a", "b", "c"]) await assets.add(the.tenant, assetOf(digit));
    const first = setOf("pumps", ["a", "b"], 1);
    expect(await sets.replace(the.tenant, first, undefined)).toBe("replaced");
    expect(await sets.replace(the.tenant, setOf("valves", ["b"], 1), undefined)).toBe("replaced");
    expect(await sets.get(the.tenant, "pumps")).toEqual(first);
    expect((await assets.get(the.tenant, "b".repeat(64)))?.usedBy).toEqual(["pumps", "valves"]);
    expect(await assets.remove(the.tenant, "a".repeat(64))).toBe("in_use");

    const second = setOf("pumps", ["b", "c"], 2);
    expect(await sets.replace(the.tenant, second, first)).toBe("replaced");
    expect((await assets.get(the.tenant, "a".repeat(64)))?.usedBy).toBeUndefined();
    expect((await assets.get(the.tenant, "c".repeat(64)))?.usedBy).toEqual(["pumps"]);
    expect(await assets.remove(the.tenant, "a".repeat(64))).toBe("removed");
    expect(await sets.get(`${the.tenant}-other`, "pumps")).toBeUndefined();
  });

  it("changes nothing over a set that is no longer the one read, or for an asset that is gone", async () => {
    const { assets, sets } = the.subject;
    await assets.add(the.tenant, assetOf("a"));
    const first = setOf("pumps", ["a"], 1);
    await sets.replace(the.tenant, first, undefined);
    expect(await sets.replace(the.tenant, setOf("pumps", [], 2), undefined)).toBe("conflict");
    expect(await sets.replace(the.tenant, setOf("pumps", [], 2), setOf("pumps", ["a"], 0))).toBe("conflict");
    expect(await sets.replace(the.tenant, setOf("pumps", ["a", "d"], 2), first)).toBe("conflict");
    expect(await sets.get(the.tenant, "pumps")).toEqual(first);
    expect((await assets.get(the.tenant, "a".repeat(64)))?.usedBy).toEqual(["pumps"]);
  });
});

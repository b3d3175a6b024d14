import { expect, it } from "vitest";
import type { AssetRecord } from "../../core/assets/model.js";
import type { AssetCatalog } from "../../core/assets/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 24);

const assetOf = (digit: string, name = `asset-${digit}.bin`): AssetRecord => ({
  assetId: digit.repeat(64),
  name,
  sizeBytes: 12,
  contentType: "application/octet-stream",
  createdAt: START,
  createdBy: "alice",
});

/** Asset records per tenant, each written once; the first record of an id stays. */
export const assetCatalogContract = contract<AssetCatalog>("the asset catalog", (the) => {
  it("adds a record once and keeps the first when the id comes again, for its tenant only", async () => {
    const catalog = the.subject;
    const asset = assetOf("a");
    expect(await catalog.get(the.tenant, asset.assetId)).toBeUndefined();
    expect(await catalog.add(the.tenant, asset)).toEqual({ record: asset, created: true });
    const again = { ...asset, name: "renamed.bin", createdAt: START + 1, createdBy: "bob" };
    expect(await catalog.add(the.tenant, again)).toEqual({ record: asset, created: false });
    expect(await catalog.get(the.tenant, asset.assetId)).toEqual(asset);
    expect(await catalog.get(`${the.tenant}-other`, asset.assetId)).toBeUndefined();
  });

  it("hands out copies: what a caller does to a record stays with the caller", async () => {
    const catalog = the.subject;
    const asset = assetOf("b");
    const { record } = await catalog.add(the.tenant, asset);
    record.name = "changed-by-its-reader";
    const read = (await catalog.get(the.tenant, asset.assetId)) as AssetRecord;
    read.sizeBytes = 0;
    expect(await catalog.get(the.tenant, asset.assetId)).toEqual(asset);
  });

  it("lists records by id page by page, either way", async () => {
    const catalog = the.subject;
    for (const digit of ["c", "a", "d", "b"]) await catalog.add(the.tenant, assetOf(digit));
    await catalog.add(`${the.tenant}-other`, assetOf("e"));
    const first = await catalog.list(the.tenant, { limit: 3 });
    expect(first).toEqual({ items: ["a", "b", "c"].map((digit) => assetOf(digit)), last: "c".repeat(64) });
    expect(await catalog.list(the.tenant, { limit: 3, after: first.last })).toEqual({
      items: [assetOf("d")],
    });
    const descending = await catalog.list(the.tenant, { limit: 2, descending: true });
    expect(descending.items.map((record) => record.name)).toEqual(["asset-d.bin", "asset-c.bin"]);
  });

  it("removes a record, and says when there was none", async () => {
    const catalog = the.subject;
    const asset = assetOf("f");
    await catalog.add(the.tenant, asset);
    expect(await catalog.remove(`${the.tenant}-other`, asset.assetId)).toBe("absent");
    expect(await catalog.remove(the.tenant, asset.assetId)).toBe("removed");
    expect(await catalog.get(the.tenant, asset.assetId)).toBeUndefined();
    expect(await catalog.remove(the.tenant, asset.assetId)).toBe("absent");
  });
});

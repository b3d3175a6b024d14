import { expect, it } from "vitest";
import type { ManifestSummary } from "../../core/c2/manifest.js";
import type { ManifestCatalog, ManifestRecord } from "../../core/manifests/ports.js";
import { contract } from "./contract.js";
import { largeManifestJson, summary } from "./manifest-store.contract.js";

const START = Date.UTC(2026, 10, 21);

/** The console's read of the tenant's binaries, and how one gets there (the agent API's manifest store). */
export interface ManifestCatalogSubject {
  catalog: ManifestCatalog;
  store(
    tenant: string,
    manifestId: string,
    json: string,
    summary: ManifestSummary,
    now: number,
  ): Promise<void>;
}

export const manifestCatalogContract = contract<ManifestCatalogSubject>("the manifest catalog", (the) => {
  /** The record a stored manifest reads as; its gzip size is whatever gzip makes of it. */
  const recordOf = (manifestId: string, json: string, createdAt = START): ManifestRecord => ({
    manifestId,
    agentType: summary.agentType,
    version: summary.version,
    bundleCount: summary.bundleCount,
    processorTypeCount: summary.processorTypes,
    controllerServiceTypeCount: summary.controllerServiceTypes,
    jsonBytes: Buffer.byteLength(json),
    gzipBytes: expect.any(Number) as unknown as number,
    createdAt,
  });

  it("reads a binary's summary and its JSON exactly as stored, and nothing for an identity it does not hold", async () => {
    const { catalog, store } = the.subject;
    const json = JSON.stringify({ agentType: "minifi-cpp", note: "é" });
    await store(the.tenant, "binary-1", json, summary, START);
    const large = largeManifestJson();
    await store(the.tenant, "binary-2", large, summary, START);

    expect(await catalog.get(the.tenant, "binary-1")).toEqual(recordOf("binary-1", json));
    expect(await catalog.read(the.tenant, "binary-1")).toBe(json);
    expect(await catalog.read(the.tenant, "binary-2")).toBe(large);
    expect(await catalog.get(the.tenant, "binary-9")).toBeUndefined();
    expect(await catalog.read(the.tenant, "binary-9")).toBeUndefined();
    expect(await catalog.get(`${the.tenant}-other`, "binary-1")).toBeUndefined();
  });

  it("hands out copies: what a caller does to a record read stays with the caller", async () => {
    const { catalog, store } = the.subject;
    await store(the.tenant, "binary-1", "{}", structuredClone(summary), START);
    const stored = structuredClone(await catalog.get(the.tenant, "binary-1"));
    const read = (await catalog.get(the.tenant, "binary-1")) as ManifestRecord;
    read.agentType = "changed by its reader";
    const [listed] = (await catalog.list(the.tenant, { limit: 1 })).items;
    if (listed) listed.bundleCount = 99;
    expect(await catalog.get(the.tenant, "binary-1")).toEqual(stored);
  });

  it("lists binaries by identity page by page, either way", async () => {
    const { catalog, store } = the.subject;
    for (const id of ["c", "a", "d", "b"]) await store(the.tenant, `binary-${id}`, "{}", summary, START);
    const idsOf = (page: { items: ManifestRecord[] }) => page.items.map((record) => record.manifestId);

    const first = await catalog.list(the.tenant, { limit: 3 });
    expect(first).toEqual({
      items: ["a", "b", "c"].map((id) => recordOf(`binary-${id}`, "{}")),
      last: "binary-c",
    });
    expect(await catalog.list(the.tenant, { limit: 3, after: first.last })).toEqual({
      items: [recordOf("binary-d", "{}")],
    });
    const descending = await catalog.list(the.tenant, { limit: 4, descending: true });
    // A full page names a cursor even when nothing follows it.
    expect(idsOf(descending)).toEqual(["binary-d", "binary-c", "binary-b", "binary-a"]);
    expect(descending.last).toBe("binary-a");
    expect(await catalog.list(the.tenant, { limit: 4, descending: true, after: descending.last })).toEqual({
      items: [],
    });
  });
});

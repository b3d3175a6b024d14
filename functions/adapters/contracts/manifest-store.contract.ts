import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import type { ManifestSummary } from "../../core/c2/manifest.js";
import type { ManifestStore } from "../../core/manifests/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 21);

export const summary: ManifestSummary = {
  agentType: "minifi-cpp",
  version: "0.99.1",
  bundleCount: 2,
  processorTypes: 40,
  controllerServiceTypes: 3,
  supportedOperations: { DESCRIBE: ["MANIFEST"], UPDATE: ["CONFIGURATION", "PROPERTIES"] },
};

/** A manifest whose gzip is larger than one table item holds, as a far bigger agent's could be. */
export const largeManifestJson = () =>
  JSON.stringify({ agentType: "minifi-cpp", padding: randomBytes(330 * 1024).toString("base64") });

/** Manifests by hash within a tenant, written once: the agent API's registration of what agents report. */
export const manifestStoreContract = contract<ManifestStore>("the manifest store", (the) => {
  it("stores a manifest once by its hash, and storing it again changes nothing", async () => {
    const store = the.subject;
    const json = JSON.stringify({ agentType: "minifi-cpp", bundles: [] });
    expect(await store.find(the.tenant, "hash-1")).toBeUndefined();
    expect(await store.read(the.tenant, "hash-1")).toBeUndefined();

    expect(await store.store(the.tenant, "hash-1", json, summary, START)).toBe("stored");
    expect(await store.find(the.tenant, "hash-1")).toEqual(summary.supportedOperations);
    expect(await store.read(the.tenant, "hash-1")).toBe(json);

    const other = { ...summary, supportedOperations: { DESCRIBE: ["MANIFEST"] } };
    expect(await store.store(the.tenant, "hash-1", "{}", other, START + 1)).toBe("exists");
    expect(await store.read(the.tenant, "hash-1")).toBe(json);
    expect(await store.find(the.tenant, "hash-1")).toEqual(summary.supportedOperations);
    expect(await store.find(`${the.tenant}-other`, "hash-1")).toBeUndefined();
  });

  it("hands out copies: what a caller does to what it stored or read stays with the caller", async () => {
    const store = the.subject;
    const stored = structuredClone(summary);
    await store.store(the.tenant, "hash-1", "{}", stored, START);
    stored.supportedOperations.DESCRIBE?.push("changed by its writer");
    (await store.find(the.tenant, "hash-1"))?.UPDATE?.push("changed by its reader");
    expect(await store.find(the.tenant, "hash-1")).toEqual(summary.supportedOperations);
  });

  it("reads a manifest back exactly, however large", async () => {
    const store = the.subject;
    const json = largeManifestJson();
    expect(await store.store(the.tenant, "hash-large", json, summary, START)).toBe("stored");
    expect(await store.read(the.tenant, "hash-large")).toBe(json);
  });
});

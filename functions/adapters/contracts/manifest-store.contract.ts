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
};

/** Content whose gzip is larger than one table item holds, as a far bigger agent's binary could have. */
export const largeManifestJson = () =>
  JSON.stringify({ agentType: "minifi-cpp", padding: randomBytes(330 * 1024).toString("base64") });

/** Binaries' content by canonical identity within a tenant, written once: what agents' manifests register. */
export const manifestStoreContract = contract<ManifestStore>("the manifest store", (the) => {
  it("stores a binary's content once under its identity, and storing it again changes nothing", async () => {
    const store = the.subject;
    const json = JSON.stringify({ agentType: "minifi-cpp", bundles: [] });
    expect(await store.has(the.tenant, "binary-1")).toBe(false);
    expect(await store.read(the.tenant, "binary-1")).toBeUndefined();

    expect(await store.store(the.tenant, "binary-1", json, summary, START)).toBe("stored");
    expect(await store.has(the.tenant, "binary-1")).toBe(true);
    expect(await store.read(the.tenant, "binary-1")).toBe(json);

    expect(await store.store(the.tenant, "binary-1", "{}", { ...summary, bundleCount: 9 }, START + 1)).toBe(
      "exists",
    );
    expect(await store.read(the.tenant, "binary-1")).toBe(json);
    expect(await store.has(the.tenant, "binary-2")).toBe(false);
    expect(await store.has(`${the.tenant}-other`, "binary-1")).toBe(false);
    expect(await store.read(`${the.tenant}-other`, "binary-1")).toBeUndefined();
  });

  it("reads content back exactly, however large", async () => {
    const store = the.subject;
    const json = largeManifestJson();
    expect(await store.store(the.tenant, "binary-large", json, summary, START)).toBe("stored");
    expect(await store.has(the.tenant, "binary-large")).toBe(true);
    expect(await store.read(the.tenant, "binary-large")).toBe(json);
  });
});

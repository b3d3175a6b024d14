import { describe, expect, it } from "vitest";
import { example } from "../../../scripts/common/c2-examples.js";
import { MemoryHotState } from "../../adapters/memory/hot-state.js";
import { MemoryManifestStore } from "../../adapters/memory/manifest-store.js";
import { guardedCache } from "../guarded-cache.js";
import type { JsonObject } from "../json.js";
import { binaryOf } from "./canonical.js";
import { makeManifestRegistration, REGISTERED_MANIFESTS_KEPT } from "./registration.js";

const NOW = 1_700_000_000_000;
const manifest = (example("java-2.3.0/ack-describe-manifest.json").agentInfo as JsonObject)
  .agentManifest as JsonObject;

function harness() {
  const store = new MemoryManifestStore();
  const cache = new MemoryHotState();
  const registration = makeManifestRegistration({ store, cache });
  const register = (tenant: string, hash: string) =>
    registration.register(tenant, hash, manifest, NOW, guardedCache());
  const calls = () => ({ store: store.calls, cache: cache.roundTrips });
  return { store, cache, register, calls };
}

describe("registering an agent's manifest", () => {
  it("stores the binary once per tenant and gives the agent its hash, identity and operations", async () => {
    const { store, register } = harness();
    const registered = await register("acme", "hash-1");
    expect(registered).toEqual({
      stored: true,
      manifest: {
        hash: "hash-1",
        manifestId: binaryOf(manifest).manifestId,
        supportedOperations: manifest.supportedOperations,
      },
    });
    expect((await register("acme", "hash-2")).stored).toBe(false);
    expect((await register("umbrella", "hash-1")).stored).toBe(true);
    expect([...store.manifests.keys()]).toEqual([
      `acme/${binaryOf(manifest).manifestId}`,
      `umbrella/${binaryOf(manifest).manifestId}`,
    ]);
  });

  it("costs a hash it registered before no cache or store call, for the most recent hashes only", async () => {
    const { register, calls } = harness();
    await register("acme", "hash-0");
    let before = calls();
    expect((await register("acme", "hash-0")).manifest.hash).toBe("hash-0");
    expect(calls()).toEqual(before);

    for (let index = 1; index <= REGISTERED_MANIFESTS_KEPT; index++) await register("acme", `hash-${index}`);
    before = calls();
    await register("acme", `hash-${REGISTERED_MANIFESTS_KEPT}`);
    expect(calls()).toEqual(before);
    // The oldest hash was forgotten, but not that its binary is stored.
    expect((await register("acme", "hash-0")).manifest.hash).toBe("hash-0");
    expect(calls()).toEqual(before);
  });

  it("costs a new hash of a binary this container knows the tenant holds no cache or store call", async () => {
    const { register, calls } = harness();
    await register("acme", "hash-1");
    const before = calls();
    const registered = await register("acme", "hash-2");
    expect(registered).toEqual({
      stored: false,
      manifest: expect.objectContaining({ hash: "hash-2", manifestId: binaryOf(manifest).manifestId }),
    });
    expect(calls()).toEqual(before);
    // Another tenant's binaries are its own: the cache is asked, then the store, which lacks it.
    expect((await register("umbrella", "hash-2")).stored).toBe(true);
    expect(calls().cache).toBeGreaterThan(before.cache);
  });

  it("makes a herd of agents reporting one new manifest at once cost one write, and one of them reports it stored", async () => {
    const { store, cache, register } = harness();
    const herd = await Promise.all(Array.from({ length: 50 }, () => register("acme", "hash-new")));
    expect(store.writes).toBe(1);
    expect(herd.filter((registration) => registration.stored)).toHaveLength(1);
    expect(new Set(herd.map((registration) => registration.manifest.manifestId))).toEqual(
      new Set([binaryOf(manifest).manifestId]),
    );
    expect(cache.roundTrips).toBe(2);
  });

  it("makes a herd of agents of one new binary, each reporting a hash of its own, cost one write", async () => {
    const { store, register } = harness();
    const herd = await Promise.all(
      Array.from({ length: 50 }, (_, index) => register("acme", `hash-${index}`)),
    );
    expect(store.writes).toBe(1);
    expect(herd.filter((registration) => registration.stored)).toHaveLength(1);
    expect(herd.map((registration) => registration.manifest.hash)).toEqual(
      Array.from({ length: 50 }, (_, index) => `hash-${index}`),
    );
  });

  it("gives every agent of a herd the failure of the registration they waited on, and lets the next one try again", async () => {
    const { store, register } = harness();
    store.failing = true;
    const herd = await Promise.allSettled(Array.from({ length: 5 }, () => register("acme", "hash-new")));
    expect(herd.map((outcome) => outcome.status)).toEqual(Array(5).fill("rejected"));
    store.failing = false;
    expect((await register("acme", "hash-new")).stored).toBe(true);
  });
});

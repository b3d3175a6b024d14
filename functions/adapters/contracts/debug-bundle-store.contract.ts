import { expect, it } from "vitest";
import type { DebugBundle } from "../../core/bundles/model.js";
import type { DebugBundleStore } from "../../core/bundles/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 30);
const DAY = 86_400_000;

/** The kept bundles: each written once, listed newest first, the tenant's or one agent's, expired ones left out. */
export const debugBundleStoreContract = contract<DebugBundleStore>("the debug bundle store", (the) => {
  /** A bundle of `agentId`'s, its operation id sorting by `at` as real ones do. */
  const bundle = (agentId: string, at: number): DebugBundle => ({
    tenant: the.tenant,
    operationId: `${at}-op~${agentId}`,
    agentId,
    uploadId: `upload-${at}`,
    bytes: 100,
    storedAt: at,
    expiresAt: at + DAY,
  });

  it("writes a bundle once and reads it back", async () => {
    const store = the.subject;
    const first = bundle("agent-1", START);
    expect(await store.create(first)).toBe(true);
    expect(await store.create({ ...first, uploadId: "another" })).toBe(false);
    expect(await store.get(the.tenant, first.operationId)).toEqual(first);
    expect(await store.get(`${the.tenant}-other`, first.operationId)).toBeUndefined();
  });

  it("lists one agent's bundles by agent, newest first, page by page, expired ones left out", async () => {
    const store = the.subject;
    const mine = [1, 2, 3].map((hour) => bundle("agent-1", START + hour * 3_600_000));
    const expired = bundle("agent-1", START - 2 * DAY);
    const others = bundle("agent-2", START + 5_000);
    for (const each of [...mine, expired, others]) await store.create(each);
    const now = START + 4 * 3_600_000;

    const first = await store.list(the.tenant, { limit: 2 }, now, "agent-1");
    expect(first.items.map(({ operationId }) => operationId)).toEqual(
      [mine[2], mine[1]].map((each) => each?.operationId),
    );
    const rest = await store.list(the.tenant, { limit: 2, after: first.last }, now, "agent-1");
    expect(rest.items).toEqual([mine[0]]);
    expect((await store.list(the.tenant, { limit: 10 }, now, "agent-2")).items).toEqual([others]);
    expect((await store.list(the.tenant, { limit: 10 }, now, "agent-3")).items).toEqual([]);
    expect((await store.list(`${the.tenant}-other`, { limit: 10 }, now, "agent-1")).items).toEqual([]);
    // The tenant's list holds every agent's.
    expect((await store.list(the.tenant, { limit: 10 }, now)).items).toEqual([
      mine[2],
      mine[1],
      mine[0],
      others,
    ]);
  });
});

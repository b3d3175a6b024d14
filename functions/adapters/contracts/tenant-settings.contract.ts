import { expect, it } from "vitest";
import type { TenantSettingsStore } from "../../core/fleet/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 29);

/** A tenant's settings: none until set, changed field by field, a null field unset, each tenant's its own. */
export const tenantSettingsContract = contract<TenantSettingsStore>("the tenant settings", (the) => {
  it("has none until set, then changes only the fields a change gives, and unsets a null one", async () => {
    const store = the.subject;
    expect(await store.get(the.tenant)).toEqual({});
    expect(await store.put(the.tenant, { cleanUpAfterDays: 30 }, START)).toEqual({
      cleanUpAfterDays: 30,
      updatedAt: START,
    });
    expect(await store.put(the.tenant, {}, START + 1)).toEqual({
      cleanUpAfterDays: 30,
      updatedAt: START + 1,
    });
    expect(await store.get(the.tenant)).toEqual({ cleanUpAfterDays: 30, updatedAt: START + 1 });
    expect(await store.put(the.tenant, { cleanUpAfterDays: null }, START + 2)).toEqual({
      updatedAt: START + 2,
    });
    expect(await store.get(the.tenant)).toEqual({ updatedAt: START + 2 });
  });

  it("sets and unsets the time zone beside the clean-up age, each by itself", async () => {
    const store = the.subject;
    await store.put(the.tenant, { cleanUpAfterDays: 30, timeZone: "Europe/Berlin" }, START);
    expect(await store.put(the.tenant, { timeZone: "America/New_York" }, START + 1)).toEqual({
      cleanUpAfterDays: 30,
      timeZone: "America/New_York",
      updatedAt: START + 1,
    });
    expect(await store.put(the.tenant, { cleanUpAfterDays: null, timeZone: null }, START + 2)).toEqual({
      updatedAt: START + 2,
    });
    expect(await store.get(the.tenant)).toEqual({ updatedAt: START + 2 });
  });

  it("keeps each tenant's settings to itself", async () => {
    const store = the.subject;
    await store.put(the.tenant, { cleanUpAfterDays: 7 }, START);
    await store.put(`${the.tenant}-other`, { cleanUpAfterDays: 90 }, START);
    expect(await store.get(the.tenant)).toEqual({ cleanUpAfterDays: 7, updatedAt: START });
    expect(await store.get(`${the.tenant}-third`)).toEqual({});
  });

  it("hands out copies: what a caller does to settings read stays with the caller", async () => {
    const store = the.subject;
    const written = await store.put(the.tenant, { cleanUpAfterDays: 7 }, START);
    written.cleanUpAfterDays = 1;
    const read = await store.get(the.tenant);
    read.cleanUpAfterDays = 2;
    expect(await store.get(the.tenant)).toEqual({ cleanUpAfterDays: 7, updatedAt: START });
  });
});

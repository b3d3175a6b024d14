import type { TenantSettings, TenantSettingsChange, TenantSettingsStore } from "../../core/fleet/ports.js";
import { dropUndefined } from "../../core/json.js";

export class MemoryTenantSettings implements TenantSettingsStore {
  readonly settings = new Map<string, TenantSettings>();

  async get(tenant: string) {
    return structuredClone(this.settings.get(tenant) ?? {});
  }

  async put(tenant: string, change: TenantSettingsChange, now: number) {
    // As in the table: a field given is set, a null one removed, one left out kept.
    const merged = { ...this.settings.get(tenant), ...dropUndefined(change), updatedAt: now };
    const record = Object.fromEntries(
      Object.entries(merged).filter(([, value]) => value !== null),
    ) as TenantSettings;
    this.settings.set(tenant, record);
    return structuredClone(record);
  }
}

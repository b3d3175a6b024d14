import type { UsageStore } from "../../core/history/ports.js";
import type { StoredSnapshot } from "../../core/history/stored.js";
import type { UsageHour, UsageHourKey } from "../../core/history/usage.js";
import { VersionedItems } from "./versioned-items.js";

/** Tenants' hours updated over the version read, racing as they do on the table (VersionedItems). */
export class MemoryUsage extends VersionedItems<UsageHour> implements UsageStore {
  readonly snapshots = new Map<string, StoredSnapshot>();
  /** Each remembered tenant, with when it was last remembered. */
  readonly tenantsRemembered = new Map<string, number>();

  async update(key: UsageHourKey, change: (stored: UsageHour | undefined) => UsageHour | undefined) {
    await this.updateItem(`${key.tenant}/${key.hour}`, change);
  }

  async read(tenant: string, fromHour: number, toHour: number) {
    return this.select(
      (hour) => hour.tenant === tenant && hour.hour >= fromHour && hour.hour < toHour,
      (a, b) => a.hour - b.hour,
    );
  }

  async keepStored(snapshot: StoredSnapshot) {
    const id = `${snapshot.tenant}/${snapshot.day}`;
    if (this.snapshots.has(id)) return false;
    this.snapshots.set(id, structuredClone(snapshot));
    return true;
  }

  async readStored(tenant: string, fromDay: number, toDay: number) {
    return [...this.snapshots.values()]
      .filter((snapshot) => snapshot.tenant === tenant && snapshot.day >= fromDay && snapshot.day < toDay)
      .sort((a, b) => a.day - b.day)
      .map((snapshot) => structuredClone(snapshot));
  }

  async rememberTenant(tenant: string, at: number) {
    this.tenantsRemembered.set(tenant, at);
  }

  async forgetTenant(tenant: string, rememberedBefore: number) {
    const at = this.tenantsRemembered.get(tenant);
    if (at !== undefined && at < rememberedBefore) this.tenantsRemembered.delete(tenant);
  }

  async rememberedTenants() {
    return [...this.tenantsRemembered.keys()];
  }
}

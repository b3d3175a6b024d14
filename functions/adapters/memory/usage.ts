import type { UsageStore } from "../../core/history/ports.js";
import type { UsageHour, UsageHourKey } from "../../core/history/usage.js";
import { VersionedItems } from "./versioned-items.js";

/** Tenants' hours updated over the version read, racing as they do on the table (VersionedItems). */
export class MemoryUsage extends VersionedItems<UsageHour> implements UsageStore {
  async update(key: UsageHourKey, change: (stored: UsageHour | undefined) => UsageHour | undefined) {
    await this.updateItem(`${key.tenant}/${key.hour}`, change);
  }

  async read(tenant: string, fromHour: number, toHour: number) {
    return this.select(
      (hour) => hour.tenant === tenant && hour.hour >= fromHour && hour.hour < toHour,
      (a, b) => a.hour - b.hour,
    );
  }
}

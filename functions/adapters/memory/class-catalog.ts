import type { AgentClassChange, AgentClassRecord, ClassCatalog } from "../../core/agents/ports.js";
import { dropUndefined } from "../../core/json.js";
import type { PageRequest } from "../../core/paging.js";
import { ofTenant, pageOf } from "./paging.js";

export class MemoryClassCatalog implements ClassCatalog {
  readonly classes = new Map<string, AgentClassRecord>();

  async list(tenant: string, request: PageRequest) {
    return pageOf(
      ofTenant(this.classes, tenant, (record) => record.name),
      request,
    );
  }

  async get(tenant: string, name: string) {
    const record = this.classes.get(`${tenant}/${name}`);
    return record && structuredClone(record);
  }

  async put(tenant: string, name: string, change: AgentClassChange, now: number) {
    const existing = this.classes.get(`${tenant}/${name}`);
    // As in the table, only the fields the change gives are written; a null clean-up age and no windows unset them.
    const { cleanUpAfterDays, maintenanceWindows, ...given } = dropUndefined(change);
    const record: AgentClassRecord = existing
      ? { ...existing, ...given, updatedAt: now }
      : { tenant, name, ...given, createdAt: now, updatedAt: now, autoCreated: false };
    if (cleanUpAfterDays === null) delete record.cleanUpAfterDays;
    else if (cleanUpAfterDays !== undefined) record.cleanUpAfterDays = cleanUpAfterDays;
    if (maintenanceWindows?.length === 0) delete record.maintenanceWindows;
    else if (maintenanceWindows !== undefined) record.maintenanceWindows = maintenanceWindows;
    this.classes.set(`${tenant}/${name}`, record);
    return { record: structuredClone(record), created: existing === undefined };
  }
}

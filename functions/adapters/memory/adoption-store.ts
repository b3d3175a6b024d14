import type { AdoptionRecord } from "../../core/adoptions/model.js";
import type { AdoptionStore, MadeCurrent } from "../../core/adoptions/ports.js";
import type { ClassFlowPolicy } from "../../core/flows/policy.js";
import type { PageRequest } from "../../core/paging.js";
import type { MemoryClassCatalog } from "./class-catalog.js";
import { pageOf } from "./paging.js";

/** Adoptions by tenant, class and id; the class's policy lives in the class catalog's records, as on the class item. */
export class MemoryAdoptionStore implements AdoptionStore {
  readonly records = new Map<string, AdoptionRecord>();

  constructor(private readonly catalog: MemoryClassCatalog) {}

  private key(tenant: string, className: string, adoptionId: string) {
    return `${tenant}/${className}/${adoptionId}`;
  }

  async create(record: AdoptionRecord) {
    this.records.set(this.key(record.tenant, record.className, record.adoptionId), structuredClone(record));
  }

  async get(tenant: string, className: string, adoptionId: string) {
    const record = this.records.get(this.key(tenant, className, adoptionId));
    return record && structuredClone(record);
  }

  async list(tenant: string, className: string, request: PageRequest) {
    const entries = [...this.records.values()]
      .filter((record) => record.tenant === tenant && record.className === className)
      .map((record) => [record.adoptionId, record] as [string, AdoptionRecord]);
    return pageOf(entries, { ...request, descending: true });
  }

  async settle(record: AdoptionRecord) {
    const key = this.key(record.tenant, record.className, record.adoptionId);
    if (this.records.get(key)?.state !== "requested") return false;
    this.records.set(key, structuredClone(record));
    return true;
  }

  async *requested() {
    const waiting = [...this.records.values()]
      .filter((record) => record.state === "requested")
      .sort((a, b) => a.createdAt - b.createdAt);
    for (const { tenant, className, adoptionId } of waiting) yield { tenant, className, adoptionId };
  }

  async makeCurrent(tenant: string, className: string, policy: ClassFlowPolicy, now: number) {
    const key = `${tenant}/${className}`;
    const existing = this.catalog.classes.get(key);
    if (existing?.flowPolicy !== undefined || existing?.activeRolloutId !== undefined)
      return (existing?.flowPolicy?.target === policy.target ? "already" : "refused") satisfies MadeCurrent;
    this.catalog.classes.set(key, {
      ...(existing ?? { tenant, name: className, createdAt: now, autoCreated: false }),
      flowPolicy: structuredClone(policy),
    });
    return "made" satisfies MadeCurrent;
  }
}

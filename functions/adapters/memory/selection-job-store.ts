import type { SelectionJobStore } from "../../core/operations/ports.js";
import type { SelectionJob } from "../../core/operations/selection-jobs.js";

/** Selection jobs by tenant and id, each step's write conditional on the cursor, as in the table. */
export class MemorySelectionJobStore implements SelectionJobStore {
  readonly jobs = new Map<string, SelectionJob>();

  private key(tenant: string, selectionId: string) {
    return `${tenant}/${selectionId}`;
  }

  async create(job: SelectionJob) {
    const key = this.key(job.tenant, job.selectionId);
    if (this.jobs.has(key)) throw new Error(`selection ${key} exists`);
    this.jobs.set(key, structuredClone(job));
  }

  async get(tenant: string, selectionId: string) {
    const job = this.jobs.get(this.key(tenant, selectionId));
    return job && structuredClone(job);
  }

  async advance(job: SelectionJob, cursor: string) {
    const key = this.key(job.tenant, job.selectionId);
    const stored = this.jobs.get(key);
    if (stored?.state !== "running" || stored.cursor !== cursor) return false;
    this.jobs.set(key, structuredClone(job));
    return true;
  }

  async *running() {
    const running = [...this.jobs.values()]
      .filter((job) => job.state === "running")
      .sort((a, b) => a.createdAt - b.createdAt);
    for (const { tenant, selectionId } of running) yield { tenant, selectionId };
  }
}

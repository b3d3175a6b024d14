import type { DebugBundle } from "../../core/bundles/model.js";
import type { DebugBundleContent, DebugBundleObject, DebugBundleStore } from "../../core/bundles/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { pageOf } from "./paging.js";

/** Bundles by tenant and operation id, written once. */
export class MemoryDebugBundles implements DebugBundleStore {
  readonly records = new Map<string, DebugBundle>();

  async create(bundle: DebugBundle) {
    const key = `${bundle.tenant}/${bundle.operationId}`;
    if (this.records.has(key)) return false;
    this.records.set(key, structuredClone(bundle));
    return true;
  }

  async get(tenant: string, operationId: string) {
    const bundle = this.records.get(`${tenant}/${operationId}`);
    return bundle && structuredClone(bundle);
  }

  async list(tenant: string, request: PageRequest, now: number, agentId?: string) {
    const entries = [...this.records.values()]
      .filter((bundle) => bundle.tenant === tenant && (agentId === undefined || bundle.agentId === agentId))
      .map((bundle) => [bundle.operationId, bundle] as [string, DebugBundle]);
    return pageOf(entries, { ...request, descending: true }, (bundle) => bundle.expiresAt > now);
  }
}

/** Bundles' bytes by object; what a failing source had written is dropped, as an aborted upload is. */
export class MemoryDebugBundleContent implements DebugBundleContent {
  readonly objects = new Map<string, Uint8Array>();

  private key(object: DebugBundleObject) {
    return `${object.tenant}/${object.operationId}/${object.uploadId}`;
  }

  async put(object: DebugBundleObject, source: AsyncIterable<Uint8Array>) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of source) chunks.push(chunk);
    this.objects.set(this.key(object), Buffer.concat(chunks));
  }

  async remove(object: DebugBundleObject) {
    this.objects.delete(this.key(object));
  }

  async *read(object: DebugBundleObject) {
    const bytes = this.objects.get(this.key(object));
    if (!bytes) throw new Error(`No bundle stored at ${this.key(object)}`);
    yield structuredClone(bytes);
  }

  async downloadUrl(object: DebugBundleObject, fileName: string, expiresInSeconds: number) {
    return `memory://${this.key(object)}?name=${fileName}&expires=${expiresInSeconds}`;
  }
}

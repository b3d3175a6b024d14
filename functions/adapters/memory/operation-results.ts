import type { OperationResultStore } from "../../core/operations/ports.js";

/** Answers by tenant and operation; `failing` makes every put fail, as an unreachable bucket does. */
export class MemoryOperationResults implements OperationResultStore {
  readonly objects = new Map<string, Uint8Array>();
  failing: Error | undefined;
  calls = 0;

  async put(tenant: string, operationId: string, bytes: Uint8Array) {
    this.calls++;
    if (this.failing) throw this.failing;
    this.objects.set(`${tenant}/${operationId}`, Uint8Array.from(bytes));
  }

  async read(tenant: string, operationId: string) {
    this.calls++;
    const stored = this.objects.get(`${tenant}/${operationId}`);
    return stored && Uint8Array.from(stored);
  }
}

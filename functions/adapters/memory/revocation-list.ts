import type { RevocationList } from "../../core/identity/ports.js";

export class MemoryRevocationList implements RevocationList {
  readonly revoked = new Map<string, Set<string>>();
  calls = 0;

  revoke(tenant: string, serial: string) {
    this.revoked.set(tenant, new Set([...(this.revoked.get(tenant) ?? []), serial]));
  }

  async revokedSerials(tenant: string) {
    this.calls++;
    return [...(this.revoked.get(tenant) ?? [])];
  }

  async isRevoked(tenant: string, serial: string) {
    this.calls++;
    return this.revoked.get(tenant)?.has(serial) ?? false;
  }
}

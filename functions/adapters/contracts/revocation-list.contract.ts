import { expect, it } from "vitest";
import type { RevocationList } from "../../core/identity/ports.js";
import { contract } from "./contract.js";

/** The tenant's revoked serials as the agent API reads them, and how one gets there (a revocation). */
export interface RevocationListSubject {
  revocations: RevocationList;
  revoke(tenant: string, serial: string): Promise<void>;
}

export const revocationListContract = contract<RevocationListSubject>("the revocation list", (the) => {
  const sorted = (serials: string[]) => [...serials].sort();

  it("lists nothing and clears every serial of a tenant that revoked none", async () => {
    const { revocations } = the.subject;
    expect(await revocations.revokedSerials(the.tenant)).toEqual([]);
    expect(await revocations.isRevoked(the.tenant, "1A")).toBe(false);
  });

  it("lists each serial revoked once, whatever the order, and tells it revoked in its tenant only", async () => {
    const { revocations, revoke } = the.subject;
    await revoke(the.tenant, "2B");
    await revoke(the.tenant, "1A");
    await revoke(the.tenant, "2B");
    await revoke(`${the.tenant}-other`, "3C");
    expect(sorted(await revocations.revokedSerials(the.tenant))).toEqual(["1A", "2B"]);
    expect(await revocations.isRevoked(the.tenant, "1A")).toBe(true);
    expect(await revocations.isRevoked(the.tenant, "3C")).toBe(false);
    expect(await revocations.isRevoked(`${the.tenant}-other`, "1A")).toBe(false);
  });
});

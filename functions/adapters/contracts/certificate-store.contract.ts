import { expect, it } from "vitest";
import type { CertificateRecord, CertificateStore } from "../../core/identity/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 21);

/** Issued certificates by serial, and the tenant's revocation list their revocation writes to. */
export interface CertificateStoreSubject {
  certificates: CertificateStore;
  /** The serials on the tenant's revocation list, in no particular order. */
  revokedSerials(tenant: string): Promise<string[]>;
}

export const certificateStoreContract = contract<CertificateStoreSubject>("the certificate store", (the) => {
  const certificate = (serial: string, change: Partial<CertificateRecord> = {}): CertificateRecord => ({
    tenant: the.tenant,
    serial,
    kind: "agent",
    agentId: "agent-1",
    subjectDN: `CN=agent-1,OU=agent,O=${the.tenant}`,
    notBefore: START,
    notAfter: START + 365 * 86_400_000,
    issuedAt: START,
    issuedBy: "alice",
    ...change,
  });

  it("stores a certificate once by serial, keeping the first, and reads nothing for a serial it does not hold", async () => {
    const { certificates } = the.subject;
    const record = certificate("1A", { signedBy: "AB:CD" });
    expect(await certificates.get(the.tenant, "1A")).toBeUndefined();
    expect(await certificates.add(record)).toBe(true);
    expect(await certificates.add({ ...record, agentId: "agent-2", issuedBy: "bob" })).toBe(false);
    expect(await certificates.get(the.tenant, "1A")).toEqual(record);
    expect(await certificates.get(`${the.tenant}-other`, "1A")).toBeUndefined();
  });

  it("revokes a certificate and lists its serial together, the first revocation's time and reason staying", async () => {
    const { certificates, revokedSerials } = the.subject;
    const record = certificate("1A");
    await certificates.add(record);
    await certificates.add(certificate("2B"));
    expect(await certificates.revoke(the.tenant, "9F", START, "unspecified")).toBeUndefined();
    expect(await revokedSerials(the.tenant)).toEqual([]);

    const revoked = { ...record, revokedAt: START + 60_000, revocationReason: "keyCompromise" };
    expect(await certificates.revoke(the.tenant, "1A", START + 60_000, "keyCompromise")).toEqual(revoked);
    expect(await certificates.get(the.tenant, "1A")).toEqual(revoked);
    expect(await revokedSerials(the.tenant)).toEqual(["1A"]);

    expect(await certificates.revoke(the.tenant, "1A", START + 120_000, "superseded")).toEqual(revoked);
    // Issuing the serial again changes nothing, its revocation included.
    expect(await certificates.add(record)).toBe(false);
    expect(await certificates.get(the.tenant, "1A")).toEqual(revoked);
    expect(await revokedSerials(the.tenant)).toEqual(["1A"]);
    expect(await revokedSerials(`${the.tenant}-other`)).toEqual([]);
  });

  it("hands out copies: what a caller does to a record it gave or read stays with the caller", async () => {
    const { certificates } = the.subject;
    const record = certificate("1A");
    const added = structuredClone(record);
    await certificates.add(record);
    record.agentId = "changed by its writer";
    const revoked = (await certificates.revoke(the.tenant, "1A", START, "unspecified")) as CertificateRecord;
    revoked.issuedBy = "changed by its reader";
    const [listed] = (await certificates.list(the.tenant, { limit: 1 })).items;
    (listed as CertificateRecord).subjectDN = "changed by its reader";
    expect(await certificates.get(the.tenant, "1A")).toEqual({
      ...added,
      revokedAt: START,
      revocationReason: "unspecified",
    });
  });

  it("lists certificates by serial page by page, either way", async () => {
    const { certificates } = the.subject;
    for (const serial of ["3C", "1A", "4D", "2B"]) await certificates.add(certificate(serial));
    await certificates.add({ ...certificate("5E"), tenant: `${the.tenant}-other` });
    const serialsOf = (page: { items: CertificateRecord[] }) => page.items.map((record) => record.serial);

    const first = await certificates.list(the.tenant, { limit: 3 });
    expect(serialsOf(first)).toEqual(["1A", "2B", "3C"]);
    expect(first.last).toBe("3C");
    expect(await certificates.list(the.tenant, { limit: 3, after: first.last })).toEqual({
      items: [certificate("4D")],
    });
    const descending = await certificates.list(the.tenant, { limit: 2, descending: true });
    expect(descending).toEqual({ items: [certificate("4D"), certificate("3C")], last: "3C" });
    // A full page names a cursor even when nothing follows it.
    const rest = await certificates.list(the.tenant, { limit: 2, descending: true, after: descending.last });
    expect(serialsOf(rest)).toEqual(["2B", "1A"]);
    expect(await certificates.list(the.tenant, { limit: 2, descending: true, after: rest.last })).toEqual({
      items: [],
    });
  });

  it("reads the agent certificates of one agent, by serial", async () => {
    const { certificates } = the.subject;
    await certificates.add(certificate("3C"));
    await certificates.add(certificate("1A"));
    await certificates.add(certificate("2B", { agentId: "agent-2" }));
    await certificates.add(certificate("4D", { kind: "fleet", agentId: undefined, fleetName: "plant" }));
    await certificates.add({ ...certificate("5E"), tenant: `${the.tenant}-other` });
    expect(await certificates.ofAgent(the.tenant, "agent-1")).toEqual([certificate("1A"), certificate("3C")]);
    expect(await certificates.ofAgent(the.tenant, "agent-9")).toEqual([]);
  });

  const DAY = 86_400_000;
  const serialsOf = (records: CertificateRecord[]) => records.map((record) => record.serial);

  it("lists a tenant's certificates expiring within a window, soonest first, page by page, revoked ones left out", async () => {
    const { certificates } = the.subject;
    await certificates.add(certificate("1A", { notAfter: START + 10 * DAY }));
    await certificates.add(certificate("2B", { notAfter: START + 5 * DAY }));
    await certificates.add(certificate("3C", { notAfter: START + 40 * DAY }));
    await certificates.add(certificate("4D", { notAfter: START + 3 * DAY }));
    await certificates.add({
      ...certificate("5E", { notAfter: START + DAY }),
      tenant: `${the.tenant}-other`,
    });
    await certificates.revoke(the.tenant, "4D", START, "unspecified");
    const window = { from: START, until: START + 30 * DAY };

    const first = await certificates.expiring(the.tenant, window, { limit: 1 });
    expect(serialsOf(first.items)).toEqual(["2B"]);
    const second = await certificates.expiring(the.tenant, window, { limit: 1, after: first.last });
    expect(serialsOf(second.items)).toEqual(["1A"]);
    expect((await certificates.expiring(the.tenant, window, { limit: 1, after: second.last })).items).toEqual(
      [],
    );
    expect(serialsOf((await certificates.expiring(the.tenant, window, { limit: 10 })).items)).toEqual([
      "2B",
      "1A",
    ]);
  });

  it("hands the sweeper each certificate to announce until it is announced once, revoked ones never", async () => {
    const { certificates } = the.subject;
    await certificates.add(certificate("1A", { notAfter: START + 2 * DAY }));
    await certificates.add(certificate("2B", { notAfter: START + DAY }));
    await certificates.add(certificate("3C", { notAfter: START + 60 * DAY }));
    await certificates.add(certificate("4D", { notAfter: START + 3 * DAY }));
    await certificates.revoke(the.tenant, "4D", START, "unspecified");
    // The due index holds every tenant's certificates: this case looks at its own tenant's.
    const due = async () =>
      serialsOf(
        (await certificates.dueForExpiryNotice(START + 30 * DAY, 1_000)).filter(
          (record) => record.tenant === the.tenant,
        ),
      );

    expect(await due()).toEqual(["2B", "1A"]);
    expect(await certificates.markExpiryAnnounced(the.tenant, "2B", START)).toBe(true);
    expect(await certificates.markExpiryAnnounced(the.tenant, "2B", START + 1)).toBe(false);
    expect(await certificates.markExpiryAnnounced(the.tenant, "4D", START)).toBe(false);
    expect(await certificates.markExpiryAnnounced(the.tenant, "9F", START)).toBe(false);
    expect(await due()).toEqual(["1A"]);
    expect((await certificates.get(the.tenant, "2B"))?.expiryAnnouncedAt).toBe(START);
    for (const record of await certificates.dueForExpiryNotice(START + 30 * DAY, 1_000))
      record.revokedAt = START;
    expect(await due()).toEqual(["1A"]);
  });

  it("reads an agent's certificates for its view, fleet certificates left out", async () => {
    const { certificates } = the.subject;
    await certificates.add(certificate("3C"));
    await certificates.add(certificate("1A"));
    await certificates.add(certificate("2B", { agentId: "agent-2" }));
    await certificates.add(certificate("4D", { kind: "fleet", agentId: undefined, fleetName: "plant" }));
    const agentCertificates = await certificates.agentCertificates(the.tenant, "agent-1");
    expect(serialsOf(agentCertificates).sort()).toEqual(["1A", "3C"]);
    expect(await certificates.agentCertificates(the.tenant, "agent-9")).toEqual([]);
  });
});

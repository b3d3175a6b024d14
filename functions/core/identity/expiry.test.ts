import { describe, expect, it } from "vitest";
import { FakeCertificateAuthority } from "../../adapters/memory/certificate-authority.js";
import { MemoryCertificateStore } from "../../adapters/memory/certificate-store.js";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryEventSink } from "../../adapters/memory/event-sink.js";
import { SequentialIds } from "../../adapters/memory/id-generator.js";
import { certificateRecord, DAY_MS } from "./certificates.js";
import { makeExpiryNotices } from "./expiry.js";

function harness(maxPerRun = 500) {
  const store = new MemoryCertificateStore();
  const events = new MemoryEventSink();
  const clock = new ManualClock();
  const authority = new FakeCertificateAuthority();
  const announce = makeExpiryNotices({
    store,
    events,
    clock,
    ids: new SequentialIds(),
    settings: { warningDays: 30, maxPerRun },
    trustedSigners: () => authority.trustedSigners(),
  });
  /** A certificate of `tenant`, valid for `days` from the fake CA's fixed notBefore (the clock's start). */
  async function certificate(tenant: string, name: string, days: number) {
    const issued = await authority.issueClientCertificate(
      { commonName: name, organizationalUnit: "agent", organization: tenant },
      days,
    );
    const record = certificateRecord(issued, clock.now(), "tester");
    await store.add(record);
    return record.serial;
  }
  return { store, events, clock, authority, announce, certificate };
}

describe("expiry notices", () => {
  it("announce each certificate once, as it enters the window, for every tenant", async () => {
    const { events, clock, announce, certificate } = harness();
    const acme = await certificate("acme", "pump-1", 20);
    const other = await certificate("other", "valve-1", 29);
    await certificate("acme", "pump-2", 365);

    expect(await announce()).toEqual({ announced: 2, more: false });
    expect(events.events).toEqual([
      expect.objectContaining({
        type: "certificate.expiring",
        tenant: "acme",
        serial: acme,
        warningDays: 30,
      }),
      expect.objectContaining({ type: "certificate.expiring", tenant: "other", serial: other }),
    ]);
    expect(events.events[0]).toMatchObject({
      subjectDN: "CN=pump-1,OU=agent,O=acme",
      kind: "agent",
      agentId: "pump-1",
      notAfter: clock.now() + 20 * DAY_MS,
      at: clock.now(),
    });
    expect(await announce()).toEqual({ announced: 0, more: false });
    clock.advance(336 * DAY_MS);
    expect(await announce()).toMatchObject({ announced: 1 });
    expect(events.events).toHaveLength(3);
  });

  it("never announce a revoked certificate", async () => {
    const { store, events, announce, certificate } = harness();
    const serial = await certificate("acme", "pump-1", 10);
    await store.revoke("acme", serial, 1, "unspecified");
    expect(await announce()).toMatchObject({ announced: 0 });
    expect(events.events).toEqual([]);
  });

  it("never announce a certificate of a retired CA, which the agent ingress refuses already", async () => {
    const { store, events, authority, announce, certificate } = harness();
    const retired = await certificate("acme", "pump-1", 10);
    authority.signer = "fake-ca-2";
    authority.trusted = new Set(["fake-ca-2"]);
    const current = await certificate("acme", "pump-2", 10);
    expect(await announce()).toEqual({ announced: 1, more: false });
    expect(events.events).toEqual([expect.objectContaining({ serial: current })]);
    // Out of the due ones, as announced ones are: the next run does not read it again.
    expect((await store.get("acme", retired))?.expiryAnnouncedAt).toBeDefined();
    expect(await announce()).toEqual({ announced: 0, more: false });
  });

  it("announce at most a run's bound, soonest first, and the rest on the next run", async () => {
    const { events, announce, certificate } = harness(2);
    const serials = [];
    for (const days of [9, 3, 7]) serials.push(await certificate("acme", `pump-${days}`, days));
    expect(await announce()).toEqual({ announced: 2, more: true });
    expect(await announce()).toEqual({ announced: 1, more: false });
    expect(events.events.map((event) => event.type === "certificate.expiring" && event.serial)).toEqual([
      serials[1],
      serials[2],
      serials[0],
    ]);
  });

  it("report a stream failure; the announcement stays recorded, as other sweeper events do", async () => {
    const { store, events, announce, certificate } = harness();
    const serial = await certificate("acme", "pump-1", 10);
    events.failing = true;
    const outcome = await announce();
    expect(outcome).toMatchObject({ announced: 1, streamError: expect.any(Error) });
    expect((await store.get("acme", serial))?.expiryAnnouncedAt).toBeDefined();
  });
});

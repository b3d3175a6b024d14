import { beforeAll, describe, expect, it } from "vitest";
import { setupUnitOf } from "./inputs.js";
import {
  certificatesIn,
  chainShapes,
  type HandshakeBytes,
  keyAlgorithms,
  measureTlsSetup,
  ticketModes,
  tlsSetupUnits,
  tlsVersions,
} from "./tls-setup.js";

/**
 * The handshakes `npm run capacity -- --measure` counts, with certificates openssl makes here: every server
 * key, TLS version and chain shape, each a real mutual-TLS connection whose chain the client verified.
 */
describe("a mutual-TLS connection's setup bytes", () => {
  let measured: HandshakeBytes[];
  beforeAll(async () => {
    measured = await measureTlsSetup(3);
  });
  const of = (keyType: string, tlsVersion: string, chain: string, tickets = "stateless") =>
    measured.find(
      (each) =>
        each.keyType === keyType &&
        each.tlsVersion === tlsVersion &&
        each.chain === chain &&
        each.tickets === tickets,
    );

  it("are measured for each server key, TLS version and chain, with the version and key asked for", () => {
    expect(measured).toHaveLength(
      keyAlgorithms.length * tlsVersions.length * chainShapes.length * ticketModes.length,
    );
    for (const keyType of keyAlgorithms)
      for (const tlsVersion of tlsVersions)
        for (const chain of chainShapes) {
          const each = of(keyType, tlsVersion, chain);
          expect(each, `${keyType} ${tlsVersion} ${chain}`).toBeDefined();
          expect(each?.certificates).toBe(certificatesIn[chain]);
          expect(each?.handshakes).toBe(3);
          // TLS 1.3 names no key exchange or signature in its suites; TLS 1.2's name the server key's kind.
          expect(each?.cipher).toMatch(
            tlsVersion === "TLSv1.3"
              ? /^TLS_(AES|CHACHA20)_/
              : keyType === "rsa2048"
                ? /_ECDHE_RSA_/
                : /_ECDHE_ECDSA_/,
          );
          expect(each?.sessionTickets).toBeGreaterThanOrEqual(1);
          // The server sends its whole chain, and its handshake messages besides.
          expect(each?.serverBytes).toBeGreaterThan(each?.certificateBytes as number);
          // The client sends its ECDSA P-256 certificate and proof of its key, whatever the server's key.
          expect(each?.clientBytes).toBeGreaterThan(500);
          expect(each?.clientBytes).toBeLessThan(2000);
        }
  });

  it("are fewer with an ECDSA P-256 key than with RSA 2048, and fewer with a shorter chain", () => {
    for (const tlsVersion of tlsVersions)
      for (const chain of chainShapes) {
        const rsa = of("rsa2048", tlsVersion, chain) as HandshakeBytes;
        const ecdsa = of("ecdsaP256", tlsVersion, chain) as HandshakeBytes;
        expect(ecdsa.certificateBytes).toBeLessThan(rsa.certificateBytes);
        expect(ecdsa.serverBytes).toBeLessThan(rsa.serverBytes);
      }
    // ACM's chain, its leaf and intermediate, a private CA's leaf and issuing CA, that leaf alone: each shorter.
    const shortening = ["acm", "leafAndIntermediate", "privateCa", "privateLeaf"] as const;
    for (const keyType of keyAlgorithms)
      for (const tickets of ticketModes)
        shortening.slice(1).forEach((chain, index) => {
          const longer = of(keyType, "TLSv1.3", shortening[index] as string, tickets) as HandshakeBytes;
          expect((of(keyType, "TLSv1.3", chain, tickets) as HandshakeBytes).serverBytes).toBeLessThan(
            longer.serverBytes,
          );
        });
  });

  it("are fewer with the stateful tickets Beacon's agent TLS servers send, for every key, version and chain", () => {
    for (const keyType of keyAlgorithms)
      for (const tlsVersion of tlsVersions)
        for (const chain of chainShapes) {
          const stateless = of(keyType, tlsVersion, chain, "stateless") as HandshakeBytes;
          const stateful = of(keyType, tlsVersion, chain, "stateful") as HandshakeBytes;
          expect(stateful.serverBytes, `${keyType} ${tlsVersion} ${chain}`).toBeLessThan(
            stateless.serverBytes,
          );
          // What the client sends does not depend on the tickets it is given (an ECDSA signature's length varies).
          expect(Math.abs(stateful.clientBytes - stateless.clientBytes)).toBeLessThanOrEqual(8);
        }
  });

  it("give units.json the TLS 1.3 figure with ACM's chain for each key, saying what the others were", () => {
    const units = tlsSetupUnits(measured);
    for (const keyType of keyAlgorithms) {
      const unit = units[setupUnitOf[keyType]];
      expect(unit?.value).toBe(of(keyType, "TLSv1.3", "acm")?.serverBytes);
      expect(unit?.how).toContain(`TLS 1.2: ${of(keyType, "TLSv1.2", "acm")?.serverBytes}`);
      expect(unit?.how).toContain(
        `Beacon's own agent TLS servers send them: ${of(keyType, "TLSv1.3", "acm", "stateful")?.serverBytes}`,
      );
    }
  });

  it("give units.json the private CA's short ECDSA chains, the tickets' saving and the client's bytes", () => {
    const units = tlsSetupUnits(measured);
    expect(units[setupUnitOf.ecdsaP256PrivateCa]?.value).toBe(
      of("ecdsaP256", "TLSv1.3", "privateCa")?.serverBytes,
    );
    expect(units[setupUnitOf.ecdsaP256PrivateLeaf]?.value).toBe(
      of("ecdsaP256", "TLSv1.3", "privateLeaf")?.serverBytes,
    );
    const acm = of("ecdsaP256", "TLSv1.3", "acm") as HandshakeBytes;
    expect(units.sessionTicketBytesSaved?.value).toBe(
      acm.serverBytes - (of("ecdsaP256", "TLSv1.3", "acm", "stateful") as HandshakeBytes).serverBytes,
    );
    expect(units.tlsSetupBytesInClient?.value).toBe(acm.clientBytes);
  });
});

import type { PublicKeyFacts } from "./ports.js";

/** Smallest RSA modulus Beacon certifies: NIST's floor for keys in use today (SP 800-131A). */
export const MIN_RSA_BITS = 2048;

/** The curves Beacon certifies, as OpenSSL names them, with the names people use. */
const ACCEPTED_CURVES: Record<string, string> = { prime256v1: "P-256", secp384r1: "P-384" };

/**
 * Why Beacon will not certify this key, or undefined when it will. RSA of 2048 bits or more and EC on P-256
 * or P-384 are what both agents' TLS stacks (OpenSSL in MiNiFi C++, the JDK in MiNiFi Java) and both AWS
 * ingresses accept for client certificates; anything else could be certified yet fail the handshake.
 */
export function keyRefusal(key: PublicKeyFacts): string | undefined {
  if (key.algorithm === "rsa") {
    const bits = key.modulusBits ?? 0;
    return bits >= MIN_RSA_BITS
      ? undefined
      : `An RSA key must have at least ${MIN_RSA_BITS} bits; this one has ${bits}`;
  }
  if (key.algorithm === "ec") {
    return key.namedCurve !== undefined && key.namedCurve in ACCEPTED_CURVES
      ? undefined
      : `An EC key must be on P-256 or P-384; this one is on ${key.namedCurve ?? "an unnamed curve"}`;
  }
  return `The key must be RSA (${MIN_RSA_BITS} bits or more) or EC (P-256 or P-384); this one is ${key.algorithm}`;
}

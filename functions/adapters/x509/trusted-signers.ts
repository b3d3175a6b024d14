import { X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** The dev CA's generations the local agent gateway trusts, by their files in its folder (npm run ca). */
const TRUSTED_CA_FILES = ["ca.pem", "ca-next.pem", "ca-previous.pem"];

/**
 * The SHA-256 fingerprints of the dev CA's generations in `directory`, read at each call, as the gateway follows
 * the folder: `npm run ca -- retire` removes one at once. A module apart from the issuing authority's, so that
 * a function that only reads the trust (the sweeper's expiry notices) does not carry the X.509 library.
 */
export async function trustedSignersIn(directory: string): Promise<ReadonlySet<string>> {
  const pems = await Promise.all(
    TRUSTED_CA_FILES.map((file) => readFile(join(directory, file), "utf8").catch(() => undefined)),
  );
  return new Set(
    pems.filter((pem) => pem !== undefined).map((pem) => new X509Certificate(pem).fingerprint256),
  );
}

import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Deliveries are signed the way the Standard Webhooks specification says (standardwebhooks.com), so receivers
 * can check them with its libraries: HMAC-SHA256 over "<id>.<timestamp>.<body>", keyed by the subscription's
 * secret ("whsec_" and base64), sent as "v1,<base64 signature>" beside the id and the timestamp.
 */
export const WebhookHeaders = {
  id: "webhook-id",
  timestamp: "webhook-timestamp",
  signature: "webhook-signature",
} as const;

const SECRET_PREFIX = "whsec_";
const SIGNATURE_VERSION = "v1";
/** Receivers should refuse older (or newer) timestamps, so a captured delivery cannot be replayed later. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
export const MIN_SECRET_BYTES = 24;

export function webhookSecretOf(randomBytes: Uint8Array): string {
  if (randomBytes.length < MIN_SECRET_BYTES)
    throw new Error(`A webhook secret needs ${MIN_SECRET_BYTES} bytes`);
  return `${SECRET_PREFIX}${Buffer.from(randomBytes).toString("base64")}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    "base64",
  );
}

function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  return createHmac("sha256", keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
}

/** The headers that sign one attempt of a delivery; the timestamp is the attempt's, the id the delivery's. */
export function signatureHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    [WebhookHeaders.id]: id,
    [WebhookHeaders.timestamp]: String(timestampSeconds),
    [WebhookHeaders.signature]: `${SIGNATURE_VERSION},${signatureOf(secret, id, timestampSeconds, body)}`,
  };
}

export type SignatureCheck = { valid: true } | { valid: false; reason: string };

/**
 * What a receiver does with a delivery: the headers (named in lower case) must carry a signature made with
 * `secret` over this very body, at a timestamp within the tolerance of `nowSeconds`.
 */
export function checkSignature(
  secret: string,
  headers: Record<string, string | undefined>,
  body: string,
  nowSeconds: number,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): SignatureCheck {
  const id = headers[WebhookHeaders.id];
  const timestamp = headers[WebhookHeaders.timestamp];
  const signatures = headers[WebhookHeaders.signature];
  if (!id || !timestamp || !signatures) return { valid: false, reason: "missing webhook headers" };
  const seconds = Number(timestamp);
  if (!Number.isInteger(seconds)) return { valid: false, reason: "malformed timestamp" };
  if (Math.abs(nowSeconds - seconds) > toleranceSeconds)
    return { valid: false, reason: "timestamp out of tolerance" };
  const expected = Buffer.from(signatureOf(secret, id, seconds, body));
  // The header may carry several signatures (a secret being rotated), separated by spaces.
  const matches = signatures.split(" ").some((entry) => {
    const [version, signature] = entry.split(",", 2);
    if (version !== SIGNATURE_VERSION || signature === undefined) return false;
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? { valid: true } : { valid: false, reason: "no matching signature" };
}

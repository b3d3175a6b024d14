import { describe, expect, it } from "vitest";
import { checkSignature, signatureHeaders, WebhookHeaders, webhookSecretOf } from "./signing.js";

// The Standard Webhooks specification's own example: this secret, id, timestamp and body sign to this value.
const SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const SPEC_TIMESTAMP = 1614265330;
const SPEC_BODY = '{"test": 2432232314}';
const SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

describe("webhook signatures", () => {
  it("sign as the Standard Webhooks specification's example does", () => {
    expect(signatureHeaders(SPEC_SECRET, SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY)).toEqual({
      [WebhookHeaders.id]: SPEC_ID,
      [WebhookHeaders.timestamp]: String(SPEC_TIMESTAMP),
      [WebhookHeaders.signature]: SPEC_SIGNATURE,
    });
  });

  it("check as valid what they signed, within the tolerance", () => {
    const headers = signatureHeaders(SPEC_SECRET, SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY);
    expect(checkSignature(SPEC_SECRET, headers, SPEC_BODY, SPEC_TIMESTAMP + 299)).toEqual({ valid: true });
  });

  it("refuse another body, another secret, a stale timestamp and missing headers", () => {
    const headers = signatureHeaders(SPEC_SECRET, SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY);
    const other = webhookSecretOf(new Uint8Array(24).fill(7));
    expect(checkSignature(SPEC_SECRET, headers, '{"test": 1}', SPEC_TIMESTAMP).valid).toBe(false);
    expect(checkSignature(other, headers, SPEC_BODY, SPEC_TIMESTAMP).valid).toBe(false);
    expect(checkSignature(SPEC_SECRET, headers, SPEC_BODY, SPEC_TIMESTAMP + 301)).toEqual({
      valid: false,
      reason: "timestamp out of tolerance",
    });
    expect(
      checkSignature(SPEC_SECRET, { ...headers, [WebhookHeaders.id]: undefined }, SPEC_BODY, SPEC_TIMESTAMP),
    ).toEqual({ valid: false, reason: "missing webhook headers" });
  });

  it("accept any of several signatures, as while a secret is rotated", () => {
    const headers = signatureHeaders(SPEC_SECRET, SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY);
    const rotated = { ...headers, [WebhookHeaders.signature]: `v1,bm90IHRoaXMgb25l ${SPEC_SIGNATURE}` };
    expect(checkSignature(SPEC_SECRET, rotated, SPEC_BODY, SPEC_TIMESTAMP).valid).toBe(true);
  });

  it("make secrets of enough random bytes only", () => {
    expect(webhookSecretOf(new Uint8Array(32))).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(() => webhookSecretOf(new Uint8Array(16))).toThrow(/24 bytes/);
  });
});

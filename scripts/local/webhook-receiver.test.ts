import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { signatureHeaders } from "../../functions/core/webhooks/signing.js";
import { ensureDevCertificates } from "./certs.js";
import { signatureOf, startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.js";

const secret = `whsec_${randomBytes(32).toString("base64")}`;
let dir: string;
let ca: string;
let receiver: WebhookReceiver;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "beacon-receiver-"));
  const certificates = await ensureDevCertificates(dir);
  const [cert, key] = await Promise.all([
    readFile(certificates.server.certPath, "utf8"),
    readFile(certificates.server.keyPath, "utf8"),
  ]);
  ca = certificates.caPem;
  receiver = await startWebhookReceiver({
    cert,
    key,
    accepts: (delivery) => signatureOf(delivery, secret).valid,
  });
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await rm(dir, { recursive: true, force: true });
});

function post(headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(receiver.url, { method: "POST", ca, headers }, (incoming) => {
      incoming.resume();
      incoming.on("end", () => resolve(incoming.statusCode ?? 0));
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

it("takes a delivery signed with the subscription's secret, and answers any other 401 as a checking receiver does", async () => {
  const body = JSON.stringify({ id: "evt-1", type: "agent.offline" });
  const now = Math.floor(Date.now() / 1000);
  const signed = signatureHeaders(secret, "evt-1", now, body);

  expect(await post(signed, body)).toBe(204);
  expect(await post(signed, body.replace("offline", "online"))).toBe(401);
  expect(
    await post(signatureHeaders(`whsec_${randomBytes(32).toString("base64")}`, "evt-1", now, body), body),
  ).toBe(401);
  expect(receiver.received).toHaveLength(3);
});

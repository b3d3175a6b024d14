import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureDevCertificates } from "../../../scripts/local/certs.js";
import {
  signatureOf,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../../scripts/local/webhook-receiver.js";
import { signatureHeaders, webhookSecretOf } from "../../core/webhooks/signing.js";
import { HttpsWebhookSender } from "./webhook-sender.js";

const secret = webhookSecretOf(new Uint8Array(32).fill(3));
const body = JSON.stringify({ id: "evt-1", type: "agent.offline", data: { agentId: "a-1" } });

let dir: string;
let ca: string;
let receiver: WebhookReceiver;
const senders: HttpsWebhookSender[] = [];

function sender(allowedHosts: string[], options: { ca?: string; timeoutMs?: number } = { ca }) {
  const made = new HttpsWebhookSender({
    policy: { allowedHosts },
    timeoutMs: options.timeoutMs ?? 5_000,
    ca: options.ca,
  });
  senders.push(made);
  return made;
}

function signed(url: string) {
  return { url, headers: signatureHeaders(secret, "evt-1", Math.floor(Date.now() / 1000), body), body };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "beacon-webhook-sender-"));
  const certificates = await ensureDevCertificates(dir);
  ca = certificates.caPem;
  const [cert, key] = await Promise.all([
    readFile(certificates.server.certPath, "utf8"),
    readFile(certificates.server.keyPath, "utf8"),
  ]);
  receiver = await startWebhookReceiver({ cert, key });
});

afterEach(() => {
  receiver.answerWith({ status: 204 });
  for (const made of senders.splice(0)) made.close();
});

afterAll(async () => {
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the HTTPS webhook sender", () => {
  it("posts the body and signature as given, and answers the receiver's status", async () => {
    const before = receiver.received.length;
    const response = await sender(["127.0.0.1"]).send(signed(receiver.url));
    expect(response.status).toBe(204);
    expect(response.error).toBeUndefined();
    const [delivery] = (await receiver.waitForDeliveries(before + 1, 10_000)).slice(before);
    expect(delivery?.body).toBe(body);
    expect(delivery?.headers["content-type"]).toBe("application/json");
    expect(signatureOf(delivery as never, secret)).toEqual({ valid: true });
  });

  it("answers a failing receiver's status and follows no redirect", async () => {
    receiver.answerWith({ status: 500 });
    expect((await sender(["127.0.0.1"]).send(signed(receiver.url))).status).toBe(500);
    receiver.answerWith({ status: 302 });
    expect((await sender(["127.0.0.1"]).send(signed(receiver.url))).status).toBe(302);
  });

  it("gives up on a receiver that never answers, and on a dropped connection", async () => {
    receiver.answerWith("hang");
    expect(await sender(["127.0.0.1"], { ca, timeoutMs: 300 }).send(signed(receiver.url))).toMatchObject({
      error: "timed out",
    });
    receiver.answerWith("reset");
    const reset = await sender(["127.0.0.1"]).send(signed(receiver.url));
    expect(reset.status).toBeUndefined();
    expect(reset.error).toMatch(/socket hang up|ECONNRESET/);
  });

  it("refuses a loopback address, named or literal, unless the host is allow-listed", async () => {
    const before = receiver.received.length;
    const byName = receiver.url.replace("127.0.0.1", "localhost");
    expect((await sender([]).send(signed(receiver.url))).error).toBe("refused address 127.0.0.1");
    const refusedName = (await sender([]).send(signed(byName))).error;
    expect(refusedName).toBe("refused localhost: it resolves to an address off the public internet");
    expect(receiver.received.length).toBe(before);
    expect((await sender(["localhost"]).send(signed(byName))).status).toBe(204);
  });

  it("does not trust a receiver whose certificate no public CA signed", async () => {
    const response = await sender(["127.0.0.1"], { ca: undefined }).send(signed(receiver.url));
    expect(response.status).toBeUndefined();
    expect(response.error).toMatch(/certificate/i);
  });
});

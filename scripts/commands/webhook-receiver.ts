/**
 * Receives event subscriptions' deliveries on this machine and prints each one with whether its signature is
 * valid: `npm run webhook-receiver -- --secret <whsec_…> [--port 9443]`. With a secret it answers a delivery
 * whose signature does not hold 401, as a receiver should, so Beacon's delivery log shows it failed.
 */
import { readFile } from "node:fs/promises";
import { parseCommandLine } from "../common/command-line.mjs";
import { ensureDevCertificates } from "../local/certs.js";
import { receiverCertsDir, signatureOf, startWebhookReceiver } from "../local/webhook-receiver.js";

const CERTS_DIR = receiverCertsDir(".beacon");

const USAGE = `Usage: npm run webhook-receiver -- [--secret <whsec_…>] [--port <port>]

Receives event subscriptions' deliveries over HTTPS and prints each one with whether its signature is valid.
  --secret  the subscription's signing secret: deliveries whose signature does not hold are answered 401
  --port    the port to listen on (default 9443)`;

const { values } = parseCommandLine(USAGE, {
  options: { secret: { type: "string" }, port: { type: "string", default: "9443" } },
});
const { server } = await ensureDevCertificates(CERTS_DIR);
const [cert, key] = await Promise.all([readFile(server.certPath, "utf8"), readFile(server.keyPath, "utf8")]);
const receiver = await startWebhookReceiver({
  cert,
  key,
  port: Number(values.port),
  onDelivery: (delivery) => {
    const { type, id } = JSON.parse(delivery.body) as { type?: string; id?: string };
    const check = values.secret ? signatureOf(delivery, values.secret) : undefined;
    let verdict = "signature not checked (no --secret)";
    if (check) verdict = check.valid ? "signature valid" : `signature INVALID: ${check.reason}`;
    console.log(`${new Date(delivery.receivedAt).toISOString()} ${type} ${id} ${verdict}`);
  },
  accepts: (delivery) => !values.secret || signatureOf(delivery, values.secret).valid,
});
console.log(`receiving deliveries at ${receiver.url} (the local receivers' certificate; Ctrl-C stops)`);

import { once } from "node:events";
import { createServer, type Server } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { checkSignature, type SignatureCheck } from "../../functions/core/webhooks/signing.js";

/** How the receiver answers the next deliveries: a status, never (the sender times out), or a dropped connection. */
export type ReceiverBehaviour = { status: number } | "hang" | "reset";

export interface ReceivedDelivery {
  receivedAt: number;
  /** Header names in lower case, as Node gives them. */
  headers: Record<string, string>;
  body: string;
}

export interface WebhookReceiver {
  readonly url: string;
  readonly received: readonly ReceivedDelivery[];
  /** From now on answers every delivery this way (2xx at first). */
  answerWith(behaviour: ReceiverBehaviour): void;
  /** Resolves once `count` deliveries arrived; rejects after `timeoutMs`. */
  waitForDeliveries(count: number, timeoutMs: number): Promise<readonly ReceivedDelivery[]>;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** The server certificate and key (PEM): the dev CA's `localhost` certificate. */
  cert: string;
  key: string;
  /** 0 (or unset) takes a free port. */
  port?: number;
  /** Path part of the receiver's URL. */
  path?: string;
  onDelivery?: (delivery: ReceivedDelivery) => void;
  /** Whether to take a delivery; one it does not take is answered 401, as a receiver checking signatures answers. */
  accepts?: (delivery: ReceivedDelivery) => boolean;
}

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The local receivers' CA and `localhost` server certificate, which `npm start` lets deliveries trust: a folder
 * of their own (made like the dev certificates), apart from the agents' dev CA, which rotates.
 */
export const receiverCertsDir = (beaconDir: string) => join(beaconDir, "webhook-receiver");

/**
 * An HTTPS endpoint that event subscriptions deliver to on this machine: it keeps what arrives, answers as told,
 * and says whether a delivery is signed by a subscription's secret. Its certificate is issued for `localhost` and
 * 127.0.0.1 by a CA the local stack's functions trust for deliveries (BEACON_WEBHOOK_CA_FILE).
 */
export async function startWebhookReceiver(options: ReceiverOptions): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const waiting = new Set<() => void>();
  const sockets = new Set<Socket>();
  let behaviour: ReceiverBehaviour = { status: 204 };
  const server: Server = createServer({ cert: options.cert, key: options.key }, (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    incoming.on("end", () => {
      if (behaviour === "reset") {
        incoming.socket.destroy();
        return;
      }
      const delivery = {
        receivedAt: Date.now(),
        headers: Object.fromEntries(
          Object.entries(incoming.headers).map(([name, value]) => [name, String(value)]),
        ),
        body: Buffer.concat(chunks).toString("utf8"),
      };
      received.push(delivery);
      options.onDelivery?.(delivery);
      for (const wake of waiting) wake();
      if (behaviour === "hang") return;
      outgoing.writeHead(options.accepts?.(delivery) === false ? 401 : behaviour.status).end();
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.listen(options.port ?? 0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}${options.path ?? "/hooks/beacon"}`,
    received,
    answerWith: (next) => {
      behaviour = next;
    },
    waitForDeliveries: (count, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return;
          clearTimeout(timer);
          waiting.delete(check);
          resolve(received);
        };
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`${received.length} of ${count} deliveries arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.add(check);
        check();
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
}

/** Whether `delivery` is signed with `secret`, checked as a receiver would at the time it arrived. */
export function signatureOf(delivery: ReceivedDelivery, secret: string): SignatureCheck {
  return checkSignature(secret, delivery.headers, delivery.body, Math.floor(delivery.receivedAt / 1000));
}

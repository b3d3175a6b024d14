import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns";
import { Agent, request } from "node:https";
import { isIP } from "node:net";
import { rootCertificates } from "node:tls";
import { hostOf, mayConnect, type UrlPolicy } from "../../core/webhooks/address-policy.js";
import type { WebhookRequest, WebhookResponse, WebhookSender } from "../../core/webhooks/ports.js";

export interface WebhookSenderOptions {
  policy: UrlPolicy;
  timeoutMs: number;
  /** A CA trusted besides the public ones (a local receiver's), PEM. */
  ca?: string;
}

/** What is read of an answer before the connection is dropped: receivers' bodies are not kept. */
const MAX_ANSWER_BYTES = 64 * 1024;
const USER_AGENT = "Beacon-Webhooks/1";

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * Posts deliveries over HTTPS. The address policy is checked on every address the receiver's name resolves to,
 * as the socket connects: a name that resolved to a public address when the subscription was made and to a
 * private one now (DNS rebinding) is refused all the same. Redirects are not followed (a 3xx is a failure),
 * and kept-alive connections serve later deliveries to the same receiver.
 */
export class HttpsWebhookSender implements WebhookSender {
  private readonly agent: Agent;

  constructor(private readonly options: WebhookSenderOptions) {
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: 32,
      ca: options.ca ? [...rootCertificates, options.ca] : undefined,
      lookup: this.checkedLookup as never,
    });
  }

  send(delivery: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const answer = (outcome: Omit<WebhookResponse, "durationMs">): WebhookResponse => ({
      ...outcome,
      durationMs: Math.round(performance.now() - started),
    });
    let url: URL;
    try {
      url = new URL(delivery.url);
    } catch {
      return Promise.resolve(answer({ error: "not a URL" }));
    }
    const host = hostOf(url);
    // An address in the URL itself is connected to without a lookup, so it is checked here.
    if (url.protocol !== "https:") return Promise.resolve(answer({ error: "not an https URL" }));
    if (isIP(host) && !mayConnect(host, host, this.options.policy)) {
      return Promise.resolve(answer({ error: `refused address ${host}` }));
    }
    const body = Buffer.from(delivery.body, "utf8");
    return new Promise((resolve) => {
      const outgoing = request(
        url,
        {
          method: "POST",
          agent: this.agent,
          headers: {
            ...delivery.headers,
            "content-type": "application/json",
            "content-length": String(body.length),
            "user-agent": USER_AGENT,
          },
          signal: AbortSignal.timeout(this.options.timeoutMs),
        },
        (incoming) => {
          let read = 0;
          incoming.on("data", (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_ANSWER_BYTES) incoming.destroy();
          });
          incoming.on("error", () => undefined);
          resolve(answer({ status: incoming.statusCode }));
        },
      );
      outgoing.on("error", (error: NodeJS.ErrnoException) => resolve(answer({ error: describe(error) })));
      outgoing.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private readonly checkedLookup = (
    hostname: string,
    options: { all?: boolean; family?: number },
    callback: LookupCallback,
  ): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find(
        ({ address }) => !mayConnect(hostname.toLowerCase(), address, this.options.policy),
      );
      if (refused) {
        // Not the address itself: a tenant must not learn what names resolve to inside Beacon's network.
        const refusal = new Error(`refused ${hostname}: it resolves to an address off the public internet`);
        return callback(refusal, []);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), []);
      callback(null, first.address, first.family);
    });
  };
}

function describe(error: NodeJS.ErrnoException): string {
  if (error.name === "TimeoutError" || error.name === "AbortError") return "timed out";
  return error.code && !error.message.includes(error.code)
    ? `${error.code}: ${error.message}`
    : error.message;
}

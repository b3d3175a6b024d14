import type { WebhookRequest, WebhookResponse, WebhookSender } from "../../core/webhooks/ports.js";

/** A receiver that answers every request with `response`, keeping what it was sent. */
export class RecordingWebhookSender implements WebhookSender {
  readonly requests: WebhookRequest[] = [];
  response: WebhookResponse = { status: 204, durationMs: 3 };

  async send(request: WebhookRequest) {
    this.requests.push(structuredClone(request));
    return { ...this.response };
  }
}

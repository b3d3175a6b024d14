import type { Delivery, DeliveryAttempt } from "./model.js";
import type { WebhookResponse } from "./ports.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Deliveries stay in their subscription's log this long after their event unless configured otherwise. */
export const DEFAULT_DELIVERY_RETENTION_DAYS = 7;

/** A delivery is tried for this long after its event, then given up. */
export const RETRY_WINDOW_MS = 24 * HOUR;

/**
 * The wait after each failed attempt: quick at first, for a receiver that blinked, then longer, so a receiver
 * that is down for hours gets a handful of requests an hour rather than a flood when it comes back. The last
 * wait repeats until the window ends: about 13 attempts in 24 hours.
 */
export const RETRY_DELAYS_MS = [
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  4 * HOUR,
] as const;

/**
 * Each wait is drawn within ±10% of its step, so the deliveries that failed together (a receiver's outage
 * fails all of them at once) do not all come back in the same second.
 */
export const RETRY_JITTER = 0.2;

/** The wait after `attempts` failed attempts; `random` is uniform in [0, 1). */
export function retryDelay(attempts: number, random: number): number {
  const step = RETRY_DELAYS_MS[Math.min(Math.max(attempts, 1), RETRY_DELAYS_MS.length) - 1] as number;
  return Math.round(step * (1 - RETRY_JITTER / 2 + RETRY_JITTER * random));
}

/**
 * What an answer means: any 2xx took the delivery; 410 Gone says the endpoint is gone for good, so Beacon
 * stops (and disables the subscription); anything else, an answer or none, is tried again.
 */
export type AttemptVerdict = "delivered" | "gone" | "retry";

export function verdictOf(response: Pick<WebhookResponse, "status">): AttemptVerdict {
  const { status } = response;
  if (status !== undefined && status >= 200 && status < 300) return "delivered";
  if (status === 410) return "gone";
  return "retry";
}

/**
 * The delivery once an attempt made at `at` got `response`: delivered, failed for good (gone, or the window is
 * over), or due again after the next wait, never later than the window's end, so its last attempt falls on it.
 */
export function afterAttempt(
  delivery: Delivery,
  response: WebhookResponse,
  at: number,
  random: number,
): Delivery {
  const lastAttempt: DeliveryAttempt = { at, durationMs: response.durationMs };
  if (response.status !== undefined) lastAttempt.status = response.status;
  if (response.error !== undefined) lastAttempt.error = response.error;
  const { nextAttemptAt: _due, ...rest } = delivery;
  const tried = { ...rest, attempts: delivery.attempts + 1, lastAttempt };
  const verdict = verdictOf(response);
  if (verdict === "delivered") return { ...tried, state: "delivered" };
  const windowEnd = delivery.createdAt + RETRY_WINDOW_MS;
  if (verdict === "gone" || at >= windowEnd) return { ...tried, state: "failed" };
  const nextAttemptAt = Math.min(at + retryDelay(tried.attempts, random), windowEnd);
  return { ...tried, state: "pending", nextAttemptAt };
}

/** A pending delivery given up unsent: its subscription was disabled or deleted since it was queued. */
export function abandoned(delivery: Delivery, at: number, why: string): Delivery {
  const { nextAttemptAt: _due, ...rest } = delivery;
  return { ...rest, state: "failed", lastAttempt: { at, error: why, durationMs: 0 } };
}

const describeAttempt = (attempt: DeliveryAttempt | undefined): string =>
  attempt?.status !== undefined ? `HTTP ${attempt.status}` : (attempt?.error ?? "no answer");

/**
 * Why a subscription is disabled once `failed` was given up, or undefined when it stays on. A receiver that
 * answered 410 Gone asked for it. Otherwise the subscription is disabled when nothing it was sent succeeded
 * since the failed delivery's event, 24 hours of retries ago: the endpoint has been unreachable or refusing
 * for a day. A receiver that took other deliveries meanwhile (it refuses only some payloads) is kept, and the
 * one failure shows in its delivery log. `lastSuccessAt` is when a delivery to it last succeeded, if known.
 */
export function disableReasonOf(failed: Delivery, lastSuccessAt: number | undefined): string | undefined {
  if (failed.state !== "failed") return undefined;
  if (failed.lastAttempt?.status === 410) return "The receiver answered 410 Gone";
  if (lastSuccessAt !== undefined && lastSuccessAt >= failed.createdAt) return undefined;
  return `No delivery succeeded for 24 hours; the last attempt got ${describeAttempt(failed.lastAttempt)}`;
}

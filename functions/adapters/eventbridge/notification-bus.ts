import type { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import type { Notification } from "../../core/webhooks/model.js";
import type { BusRefusal, NotificationBus } from "../../core/webhooks/ports.js";
import { notificationBody } from "../../core/webhooks/requests.js";
import type { MadeForDirectCalls } from "../aws/call-settings.js";
import { type JsonProtocolCall, jsonProtocolCalls } from "../aws/json-protocol.js";

/** What notifications are put through: a client made for direct calls alone (a function's), or the SDK's. */
export type BusClient = MadeForDirectCalls | EventBridgeClient;

/**
 * Every entry's `source`. One name on every stage: the bus is the stage's own, so a rule's pattern is the same
 * on each, and the stage of an event forwarded elsewhere shows in the bus's ARN and account.
 */
export const NOTIFICATION_SOURCE = "beacon";

/** PutEvents takes at most 10 entries and 256 KB of them in a call. */
const MAX_ENTRIES_PER_CALL = 10;
const MAX_BYTES_PER_CALL = 256 * 1024;
/** What EventBridge counts for an entry's `Time`, whatever its value. */
const TIME_BYTES = 14;

export interface NotificationBusOptions {
  /** PutEvents calls per entry, the first included; each resends only what the last one refused. */
  maxAttempts: number;
  /** Pause before the first resend, doubled after each. */
  backoffMs: number;
  /** Calls in flight at once: a batch of 10,000 offline agents is 1,000 calls. */
  concurrency: number;
}

/** An entry as PutEvents takes it in EventBridge's JSON API: `Time` in seconds since the epoch. */
interface PutEventsEntry {
  EventBusName: string;
  Source: string;
  DetailType: string;
  Detail: string;
  Time: number;
}

/** What became of each entry of a PutEvents call, in the order they were sent. */
interface PutEventsOutcome {
  FailedEntryCount?: number;
  Entries?: { EventId?: string; ErrorCode?: string; ErrorMessage?: string }[];
}

interface Entry {
  index: number;
  entry: PutEventsEntry;
}

/**
 * Notifications on an EventBridge bus: `detail-type` the notification's type, `detail` its body as webhooks get
 * it (its `tenant` and `id` among the fields, for rules and de-duplication), `time` its event's. PutEvents is sent
 * directly (json-protocol.ts), without the SDK's command pipeline, which a cold stream consumer would otherwise
 * load and compile; not retried there, as the bus resends only the entries a call refused.
 */
export class EventBridgeNotificationBus implements NotificationBus {
  private readonly call: JsonProtocolCall;

  constructor(
    client: BusClient,
    private readonly busName: string,
    private readonly options: NotificationBusOptions = { maxAttempts: 3, backoffMs: 50, concurrency: 8 },
  ) {
    this.call = jsonProtocolCalls(client, {
      targetPrefix: "AWSEvents",
      signingName: "events",
      contentType: "application/x-amz-json-1.1",
      retried: false,
    });
  }

  async put(notifications: readonly Notification[]): Promise<BusRefusal[]> {
    const calls = callsOf(
      notifications.map((notification, index) => ({ index, entry: this.entryOf(notification) })),
    );
    const refusals: BusRefusal[] = [];
    let next = 0;
    const caller = async () => {
      while (next < calls.length) refusals.push(...(await this.putWithRetries(calls[next++] as Entry[])));
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, calls.length) }, caller));
    return refusals.sort((a, b) => a.index - b.index);
  }

  private entryOf(notification: Notification): PutEventsEntry {
    return {
      EventBusName: this.busName,
      Source: NOTIFICATION_SOURCE,
      DetailType: notification.type,
      Detail: notificationBody(notification),
      Time: Date.parse(notification.at) / 1000,
    };
  }

  /** One call's entries, resent while some are refused, up to the attempts allowed; those still refused. */
  private async putWithRetries(entries: Entry[]): Promise<BusRefusal[]> {
    let pending = entries;
    let reason = "";
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1) await sleep(this.options.backoffMs * 2 ** (attempt - 2));
      try {
        const result = JSON.parse(
          await this.call("PutEvents", JSON.stringify({ Entries: pending.map(({ entry }) => entry) })),
        ) as PutEventsOutcome;
        if (!result.FailedEntryCount) return [];
        const outcomes = result.Entries ?? [];
        const refused = pending.filter((_, index) => !outcomes[index]?.EventId);
        const first = outcomes.find((outcome) => outcome.ErrorCode);
        reason = first ? `${first.ErrorCode}: ${first.ErrorMessage ?? ""}` : "refused without a reason";
        pending = refused;
      } catch (error) {
        reason = `${(error as Error).name}: ${(error as Error).message}`;
      }
      if (pending.length === 0) return [];
      if (attempt >= this.options.maxAttempts) return pending.map(({ index }) => ({ index, reason }));
    }
  }
}

/** Entries in calls of at most 10 and 256 KB, in order. */
function callsOf(entries: Entry[]): Entry[][] {
  const calls: Entry[][] = [];
  let current: Entry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = sizeOf(entry.entry);
    if (
      current.length === MAX_ENTRIES_PER_CALL ||
      (current.length > 0 && bytes + size > MAX_BYTES_PER_CALL)
    ) {
      calls.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) calls.push(current);
  return calls;
}

/** An entry's size as EventBridge counts it against a call's 256 KB (its bus name does not count). */
function sizeOf(entry: PutEventsEntry): number {
  const utf8 = (text: string) => Buffer.byteLength(text);
  return TIME_BYTES + utf8(entry.Source) + utf8(entry.DetailType) + utf8(entry.Detail);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

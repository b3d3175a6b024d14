import type { IdGenerator } from "../ports.js";
/** Every event of a tenant is matched against all its active subscriptions: few enough that this stays cheap. */
export const MAX_SUBSCRIPTIONS_PER_TENANT = 25;

/** 256 bits, above the 24 bytes signing asks for. */
export const SECRET_BYTES = 32;

export const MAX_URL_LENGTH = 2048;

export const MAX_DESCRIPTION_LENGTH = 256;

/** Subscription ids sort by creation time, so a tenant's list runs in the order they were made. */
const SUBSCRIPTION_ID_PATTERN = /^wh-[0-9]{13}-[A-Za-z0-9-]{1,64}$/;

export const isSubscriptionId = (value: string): boolean => SUBSCRIPTION_ID_PATTERN.test(value);

export const newSubscriptionId = (now: number, ids: IdGenerator): string =>
  `wh-${String(now).padStart(13, "0")}-${ids.newId()}`;

export interface SubscriptionRequest {
  url: string;
  /** Notification types, or families of them as `<family>.*`. */
  eventTypes: string[];
  /** Only events of agents of this class. */
  agentClass?: string;
  description?: string;
}

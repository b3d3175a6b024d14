import { OperationStates, RolloutStates } from "../events/model.js";

/**
 * Every notification type a subscription may name: the public names of the Beacon events a tenant can be
 * told of. An operation's or a rollout's is the state it entered; `webhook.disabled` says a subscription
 * that kept failing was switched off, `webhook.test` is what the console's test route sends.
 */
export const NotificationTypes: readonly string[] = [
  "agent.offline",
  "agent.online",
  "agent.decommissioned",
  "agent.registered",
  ...OperationStates.map((state) => `operation.${state}`),
  ...RolloutStates.map((state) => `rollout.${state}`),
  "certificate.expiring",
  "webhook.disabled",
  "webhook.test",
];

const FAMILY_WILDCARD = ".*";

/** A type's family: what precedes its last dot (`operation` for `operation.timed_out`). */
const familyOf = (type: string): string => type.slice(0, type.lastIndexOf("."));

/** The families a subscription may name as `<family>.*`: `agent.*`, `operation.*`, ... */
export const NotificationFamilies: readonly string[] = [
  ...new Set(NotificationTypes.map((type) => `${familyOf(type)}${FAMILY_WILDCARD}`)),
];

/** Whether a subscription may name `pattern`: a notification type, or a family of them. */
export const isNotificationPattern = (pattern: string): boolean =>
  NotificationTypes.includes(pattern) || NotificationFamilies.includes(pattern);

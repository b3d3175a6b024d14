import type { Schemas } from "./api/client";

export type EventTypePattern = Schemas["NotificationTypePattern"];

/**
 * What each notification type a subscription may name tells its receiver, keyed by the OpenAPI document's
 * `NotificationTypePattern` (itself checked against the core's list): a type the API gains or drops fails
 * the console's typecheck until it is described here. The page cannot import the core's list, whose module
 * graph reaches Node's crypto.
 */
const DESCRIPTIONS: Record<EventTypePattern, string> = {
  "agent.*": "every agent event",
  "agent.registered": "an agent registered",
  "agent.offline": "an agent went silent",
  "agent.online": "an agent heartbeats again",
  "agent.decommissioned": "a silent agent was decommissioned",
  "operation.*": "every change of an operation's state",
  "operation.queued": "queued for its agent",
  "operation.delivered": "sent to its agent",
  "operation.awaiting_effect": "acknowledged, its effect not yet seen",
  "operation.done": "done",
  "operation.failed": "failed",
  "operation.timed_out": "timed out",
  "operation.cancelled": "cancelled",
  "rollout.*": "every change of a rollout's state",
  "rollout.awaiting_approval": "waiting for a second operator's approval",
  "rollout.scheduled": "waiting for its start time",
  "rollout.canary": "its canary started",
  "rollout.rolling": "rolling out batch by batch",
  "rollout.following": "following its group, reaching agents that join it",
  "rollout.paused": "paused",
  "rollout.rolling_back": "rolling back",
  "rollout.completed": "completed",
  "rollout.rolled_back": "rolled back",
  "rollout.aborted": "aborted",
  "rollout.refused": "refused before it started",
  "certificate.*": "every certificate event",
  "certificate.expiring": "a certificate expires soon",
  "webhook.*": "every event about subscriptions",
  "webhook.disabled": "a subscription that kept failing was disabled",
  "webhook.test": "a test sent from the console",
};

const FAMILY_WILDCARD = ".*";

export interface EventFamily {
  name: string;
  /** `<name>.*`: every type of the family, those added later too. */
  pattern: EventTypePattern;
  types: EventTypePattern[];
}

/** The families, each with its types, in the order above: how the form offers them. */
export const EventFamilies: readonly EventFamily[] = (() => {
  const patterns = Object.keys(DESCRIPTIONS) as EventTypePattern[];
  return patterns
    .filter((pattern) => pattern.endsWith(FAMILY_WILDCARD))
    .map((pattern) => {
      const name = pattern.slice(0, -FAMILY_WILDCARD.length);
      const types = patterns.filter((type) => type.startsWith(`${name}.`) && type !== pattern);
      return { name, pattern, types };
    });
})();

export const describeEventType = (pattern: EventTypePattern): string => DESCRIPTIONS[pattern];

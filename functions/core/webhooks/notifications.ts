import type {
  AgentDecommissionedEvent,
  AgentOfflineEvent,
  AgentOnlineEvent,
  BeaconEvent,
} from "../events/model.js";
import { dropUndefined } from "../json.js";
import type { Delivery, Notification, Subscription } from "./model.js";
import { notificationBody } from "./requests.js";

const iso = (epochMs: number) => new Date(epochMs).toISOString();

function notification(
  event: BeaconEvent,
  type: string,
  data: Record<string, unknown>,
  agentClass?: string,
): Notification {
  return dropUndefined({
    id: event.eventId,
    type,
    tenant: event.tenant,
    at: iso(event.at),
    agentClass,
    data: dropUndefined(data),
  }) as Notification;
}

/**
 * The notification a Beacon event makes, or undefined: heartbeats (but an agent's first) and acknowledgements
 * are not sent. A webhook.disabled goes to the tenant's other subscriptions that ask for it (the disabled one
 * is no longer active). Only what names and counts things goes out, never what an
 * agent wrote: an operation's details and failure cause carry the agent's text (a DESCRIBE answer holds its
 * configuration, tokens included), a heartbeat its status and configuration checksums.
 */
/** An agent's going silent, coming back or being cleaned up: the agent, its last heartbeat, and what the decision used. */
const presenceNotification = (
  event: AgentOfflineEvent | AgentOnlineEvent | AgentDecommissionedEvent,
  used: Record<string, number>,
) =>
  notification(
    event,
    event.type,
    { agentId: event.agentId, lastSeen: iso(event.lastSeen), ...used },
    event.agentClass,
  );

export function notificationOf(event: BeaconEvent): Notification | undefined {
  switch (event.type) {
    case "heartbeat":
      if (!event.firstSight) return undefined;
      return notification(
        event,
        "agent.registered",
        { agentId: event.agentId, manifestId: event.manifestId, flowId: event.flowId },
        event.agentClass,
      );
    case "agent.offline":
      return presenceNotification(event, { heartbeatPeriodMs: event.heartbeatPeriodMs });
    case "agent.online":
      return presenceNotification(event, {});
    case "agent.decommissioned":
      return presenceNotification(event, { cleanUpAfterDays: event.cleanUpAfterDays });
    case "operation":
      return notification(
        event,
        `operation.${event.state}`,
        {
          agentId: event.agentId,
          operationId: event.operationId,
          operation: event.operation,
          operand: event.operand,
          from: event.from,
          state: event.state,
          ackState: event.ackState,
          confirmedBy: event.confirmedBy,
          reason: event.reason,
        },
        event.agentClass,
      );
    case "rollout":
      return notification(
        event,
        `rollout.${event.state}`,
        {
          rolloutId: event.rolloutId,
          className: event.className,
          fromFlow: event.fromFlow,
          toFlow: event.toFlow,
          from: event.from,
          state: event.state,
          reason: event.reason,
          counts: event.counts,
        },
        event.className,
      );
    case "certificate.expiring":
      return notification(event, event.type, {
        serial: event.serial,
        kind: event.kind,
        agentId: event.agentId,
        fleetName: event.fleetName,
        subjectDN: event.subjectDN,
        notAfter: iso(event.notAfter),
        warningDays: event.warningDays,
      });
    case "webhook.disabled":
      return notification(event, event.type, {
        subscriptionId: event.subscriptionId,
        reason: event.reason,
        deliveryId: event.deliveryId,
      });
    default:
      return undefined;
  }
}

/** Whether a type is one a subscription names: the type itself, or its family's `x.*`. */
export function matchesPattern(type: string, pattern: string): boolean {
  if (pattern.endsWith(".*")) return type.startsWith(pattern.slice(0, -1));
  return type === pattern;
}

/**
 * Whether a subscription wants a notification: one of its patterns names the type and, when it filters by
 * class, `agentClass` is that class: the notification's own, or, for certificate notifications and operations
 * created before their events named a class, their agent's as the registry has it.
 */
export function wants(
  subscription: Subscription,
  notice: Notification,
  agentClass: string | undefined = notice.agentClass,
): boolean {
  if (subscription.state !== "active") return false;
  if (subscription.agentClass !== undefined && agentClass !== subscription.agentClass) return false;
  return subscription.eventTypes.some((pattern) => matchesPattern(notice.type, pattern));
}

/** The agent a notification without a class is about, when a subscription filtered by class would want it. */
export function agentToClassify(subscription: Subscription, notice: Notification): string | undefined {
  const { agentId } = notice.data;
  if (notice.agentClass !== undefined || typeof agentId !== "string") return undefined;
  return subscription.agentClass !== undefined && wants(subscription, notice, subscription.agentClass)
    ? agentId
    : undefined;
}

/**
 * The delivery of a notification to a subscription, due at `dueAt`. Everything else comes from the event, so
 * however often a batch is read it is the same delivery: its id is the event's, and it counts as created when
 * the event happened (the 24 hours of retries start there, so a stream that fell behind sends nothing stale).
 */
export function deliveryOf(subscription: Subscription, notice: Notification, dueAt: number): Delivery {
  return {
    tenant: subscription.tenant,
    subscriptionId: subscription.subscriptionId,
    deliveryId: notice.id,
    notificationType: notice.type,
    body: notificationBody(notice),
    createdAt: Date.parse(notice.at),
    state: "pending",
    attempts: 0,
    nextAttemptAt: dueAt,
  };
}

/**
 * A delivery's place in its subscription's log, newest first: its event's time, zero-padded so that string order
 * is time order, then its id. The log's cursors carry it.
 */
export const deliveryLogKey = (delivery: Pick<Delivery, "createdAt" | "deliveryId">): string =>
  `${String(Math.max(0, Math.floor(delivery.createdAt))).padStart(15, "0")}#${delivery.deliveryId}`;

export const isDeliveryLogKey = (key: string): boolean => /^\d{15}#.{1,256}$/.test(key);

import type { ValidateFunction } from "ajv";
import * as compiled from "./compiled-event-validators.js";

/** Each stream event type's validator, compiled from its schema in schemas/events/. */
const eventValidators: Record<string, ValidateFunction> = {
  heartbeat: compiled.heartbeatEvent,
  ack: compiled.ackEvent,
  rollout: compiled.rolloutEvent,
  "certificate.expiring": compiled.certificateExpiringEvent,
  "agent.offline": compiled.agentOfflineEvent,
  "agent.online": compiled.agentOnlineEvent,
  "agent.decommissioned": compiled.agentDecommissionedEvent,
  "webhook.disabled": compiled.webhookDisabledEvent,
  download: compiled.downloadEvent,
  upload: compiled.uploadEvent,
};

/** The validator of a stream event's type (the operation event's checks that its type is one). */
export const eventValidator = (event: { type: string }): ValidateFunction =>
  (Object.hasOwn(eventValidators, event.type) ? eventValidators[event.type] : undefined) ??
  compiled.operationEvent;

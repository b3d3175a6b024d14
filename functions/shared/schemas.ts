import type { ValidateFunction } from "ajv";
import { BeaconError } from "../core/errors.js";
import * as compiled from "./compiled-validators.js";

/**
 * Compiled from the schemas in schemas/, the single source of the wire formats, ahead of time
 * (`npm run schemas:validators`): a function compiles no schema when it starts.
 */
export const Validators = {
  heartbeat: compiled.heartbeat,
  acknowledge: compiled.acknowledge,
  heartbeatResponse: compiled.heartbeatResponse,
  heartbeatEvent: compiled.heartbeatEvent,
  ackEvent: compiled.ackEvent,
  operationEvent: compiled.operationEvent,
  rolloutEvent: compiled.rolloutEvent,
  certificateExpiringEvent: compiled.certificateExpiringEvent,
  agentOfflineEvent: compiled.agentOfflineEvent,
  agentOnlineEvent: compiled.agentOnlineEvent,
  agentDecommissionedEvent: compiled.agentDecommissionedEvent,
  webhookDisabledEvent: compiled.webhookDisabledEvent,
} as const;

const eventValidators: Record<string, ValidateFunction> = {
  heartbeat: Validators.heartbeatEvent,
  ack: Validators.ackEvent,
  rollout: Validators.rolloutEvent,
  "certificate.expiring": Validators.certificateExpiringEvent,
  "agent.offline": Validators.agentOfflineEvent,
  "agent.online": Validators.agentOnlineEvent,
  "agent.decommissioned": Validators.agentDecommissionedEvent,
  "webhook.disabled": Validators.webhookDisabledEvent,
};

/** The validator of a stream event's type (the operation event's checks that its type is one). */
export const eventValidator = (event: { type: string }): ValidateFunction =>
  (Object.hasOwn(eventValidators, event.type) ? eventValidators[event.type] : undefined) ??
  Validators.operationEvent;

/** Throws invalid_payload naming the first field that breaks the schema. */
export function assertValid(validate: ValidateFunction, value: unknown, what: string): void {
  if (validate(value)) return;
  const [first] = validate.errors ?? [];
  const where = first?.instancePath || "/";
  throw new BeaconError(
    "invalid_payload",
    `The ${what} is invalid at ${where}: ${first?.message ?? "schema mismatch"}`,
  );
}

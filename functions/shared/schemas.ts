import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import acknowledgeSchema from "../../schemas/c2/acknowledge.schema.json" with { type: "json" };
import heartbeatSchema from "../../schemas/c2/heartbeat.schema.json" with { type: "json" };
import heartbeatResponseSchema from "../../schemas/c2/heartbeat-response.schema.json" with { type: "json" };
import ackEventSchema from "../../schemas/events/ack-event.schema.json" with { type: "json" };
import certificateExpiringEventSchema from "../../schemas/events/certificate-expiring-event.schema.json" with {
  type: "json",
};
import heartbeatEventSchema from "../../schemas/events/heartbeat-event.schema.json" with { type: "json" };
import operationEventSchema from "../../schemas/events/operation-event.schema.json" with { type: "json" };
import rolloutEventSchema from "../../schemas/events/rollout-event.schema.json" with { type: "json" };
import { BeaconError } from "../core/errors.js";

/** Compiled once per container: the schemas in schemas/ are the single source of the wire formats. */
const ajv = new Ajv2020({ allErrors: false, strict: true, allowUnionTypes: true });

export const Validators = {
  heartbeat: ajv.compile(heartbeatSchema),
  acknowledge: ajv.compile(acknowledgeSchema),
  heartbeatResponse: ajv.compile(heartbeatResponseSchema),
  heartbeatEvent: ajv.compile(heartbeatEventSchema),
  ackEvent: ajv.compile(ackEventSchema),
  operationEvent: ajv.compile(operationEventSchema),
  rolloutEvent: ajv.compile(rolloutEventSchema),
  certificateExpiringEvent: ajv.compile(certificateExpiringEventSchema),
} as const;

/** The validator of a stream event's type. */
export const eventValidator = (event: { type: string }): ValidateFunction =>
  event.type === "heartbeat"
    ? Validators.heartbeatEvent
    : event.type === "ack"
      ? Validators.ackEvent
      : event.type === "rollout"
        ? Validators.rolloutEvent
        : event.type === "certificate.expiring"
          ? Validators.certificateExpiringEvent
          : Validators.operationEvent;

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

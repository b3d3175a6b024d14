import type { ValidateFunction } from "ajv";
import { BeaconError } from "../core/errors.js";
import * as compiled from "./compiled-validators.js";

/**
 * Compiled from the schemas in schemas/, the single source of the wire formats, ahead of time
 * (`npm run schemas:validators`): a function compiles no schema when it starts. The agents' side only: the
 * stream's events have theirs in event-validators.ts, which the agent API does not bundle.
 */
export const Validators = {
  heartbeat: compiled.heartbeat,
  acknowledge: compiled.acknowledge,
  heartbeatResponse: compiled.heartbeatResponse,
} as const;

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

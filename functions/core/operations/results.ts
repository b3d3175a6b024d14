import type { JsonObject } from "../json.js";
import type { OperationRecord } from "./model.js";
import { redactSecrets } from "./redaction.js";

/** Days the console serves a kept answer unless the deployment sets others; the bucket deletes it after. */
export const DEFAULT_OPERATION_RESULT_DAYS = 7;

/**
 * The prefix of every kept answer in its bucket, tenants' below it: the agent API may only put and the console
 * only read there, and the bucket's lifecycle deletes what is under it after the retention (infra/lib).
 */
export const RESULTS_PREFIX = "operation-results";

/** The media type of every kept answer: the acknowledgement's JSON. */
export const RESULT_CONTENT_TYPE = "application/json";

/**
 * The DESCRIBE operands whose acknowledgement answers the operator: the agent's configuration, metrics, thread
 * stacks, components' state, and for a DESCRIBE MANIFEST what comes with the manifest (the C++ agent's
 * `configuration_options`, the Java agent's device, flow and resource information).
 */
const ANSWERING_OPERANDS = new Set(["CONFIGURATION", "METRICS", "JSTACK", "CORECOMPONENTSTATE", "MANIFEST"]);

/** What every acknowledgement carries to say what it acknowledges: no answer on its own. */
const ENVELOPE = new Set(["operation", "operationId", "operationState", "identifier", "agentId"]);

/**
 * Left out of a kept answer: `agentInfo` is the agent's manifest (up to a megabyte), which Beacon keeps in its
 * manifest catalog already, or only the agent's id.
 */
const LEFT_OUT = new Set(["agentInfo"]);

/**
 * The answer a DESCRIBE's applied acknowledgement brings, as the agent sent it minus LEFT_OUT, with what looks
 * secret redacted (redaction.ts); undefined for any other operation, and for an acknowledgement that carries
 * nothing beyond what it acknowledges (the C++ agent acknowledges a DESCRIBE of an operand it does not know).
 */
export function describeAnswerOf(record: OperationRecord, ack: JsonObject): JsonObject | undefined {
  if (record.operation !== "DESCRIBE" || !ANSWERING_OPERANDS.has(record.operand ?? "")) return undefined;
  const kept = Object.entries(ack).filter(([key]) => !LEFT_OUT.has(key));
  if (!kept.some(([key]) => !ENVELOPE.has(key))) return undefined;
  return redactSecrets(Object.fromEntries(kept)) as JsonObject;
}

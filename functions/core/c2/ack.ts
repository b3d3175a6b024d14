import { asObject, asString, type JsonObject, truncate } from "../json.js";
import { flowIdWithin } from "./heartbeat.js";
import { type Acknowledgement, type AckState, AckStates } from "./model.js";

const MAX_DETAILS_LENGTH = 2_000;

/** Reads an acknowledgement of either dialect; undefined when it names no operation or no known state. */
export function normalizeAcknowledgement(body: JsonObject): Acknowledgement | undefined {
  const operationId = asString(body.operationId) ?? asString(body.operationid);
  const operationState = asObject(body.operationState);
  const state = asString(operationState?.state)?.toUpperCase();
  if (!operationId || !isAckState(state)) return undefined;
  const agentInfo = asObject(body.agentInfo);
  return {
    operationId,
    dialect: asString(body.operation)?.toLowerCase() === "acknowledge" ? "cpp" : "java",
    state,
    details: truncate(asString(operationState?.details), MAX_DETAILS_LENGTH),
    failureCause: truncate(failureCauseOf(operationState?.failureCause), MAX_DETAILS_LENGTH),
    agentId: asString(agentInfo?.identifier),
    manifestHash: asString(agentInfo?.agentManifestHash),
    manifest: asObject(agentInfo?.agentManifest),
    flowId: flowIdWithin(asString(asObject(body.flowInfo)?.flowId)),
  };
}

const isAckState = (value: string | undefined): value is AckState =>
  value !== undefined && (AckStates as readonly string[]).includes(value);

/** Java sends failureCause as an object ({exceptionMessage, validationResults, ...}), C++ as text. */
function failureCauseOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** States after which the agent really did what was asked. */
export const isAppliedState = (state: AckState): boolean =>
  state === "FULLY_APPLIED" || state === "PARTIALLY_APPLIED" || state === "NO_OPERATION";

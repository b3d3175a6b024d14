import { dropUndefined } from "../c2/json.js";
import { newOperationId } from "../operations/lifecycle.js";
import type { OperationRecord } from "../operations/model.js";
import type { IdGenerator } from "../ports.js";

/**
 * Where agents download a flow version. Beacon sends the version's hash as `flowId` too, and the Java
 * agent, which derives a flow id from the 4th path segment when `flowId` is absent, reads the same hash.
 */
export const flowContentUrl = (agentApiUrl: string, flowId: string): string =>
  `${agentApiUrl.replace(/\/+$/, "")}/c2/api/flows/${encodeURIComponent(flowId)}/content`;

/** What an UPDATE CONFIGURATION carries: where to download the flow version, and the id it goes by. */
export const updateConfigurationArgs = (agentApiUrl: string, flowId: string): Record<string, string> => ({
  location: flowContentUrl(agentApiUrl, flowId),
  flowId,
});

/** A queued UPDATE CONFIGURATION that Beacon itself creates (catch-up, a rollout) to send an agent a flow. */
export function newUpdateConfiguration(request: {
  tenant: string;
  agentId: string;
  flowId: string;
  agentApiUrl: string;
  createdBy: string;
  now: number;
  ids: IdGenerator;
  rolloutId?: string;
  ackTimeoutMs?: number;
}): OperationRecord {
  return dropUndefined({
    tenant: request.tenant,
    agentId: request.agentId,
    operationId: newOperationId(request.now, request.ids),
    operation: "UPDATE",
    operand: "CONFIGURATION",
    args: updateConfigurationArgs(request.agentApiUrl, request.flowId),
    state: "queued" as const,
    createdAt: request.now,
    createdBy: request.createdBy,
    rolloutId: request.rolloutId,
    ackTimeoutMs: request.ackTimeoutMs,
  });
}

import { type SupportedOperations, supports } from "../c2/manifest.js";
import type { OperationRecord } from "./model.js";

export interface DeliveryPlan {
  /** Queued operations to deliver now, in the order they were created. */
  deliver: OperationRecord[];
  /** Queued operations the agent's manifest no longer lists: they can never be delivered. */
  unsupported: OperationRecord[];
  /** Something stays queued after this reply (over the limit, or waiting on a dependency). */
  remaining: boolean;
}

/**
 * Chooses what one heartbeat reply carries from the agent's open operations (queued and delivered).
 * An operation waits until every operation it depends on is closed: a failed, timed out or cancelled
 * dependency cancels its dependents before it closes, so a closed dependency is a done one. The Java
 * agent drops a whole reply when one operation in it does not parse, so nothing the manifest does not
 * list goes out, and at most `limit` operations go in one reply.
 */
export function planDelivery(
  open: OperationRecord[],
  supportedOperations: SupportedOperations,
  limit: number,
): DeliveryPlan {
  const openIds = new Set(open.map((operation) => operation.operationId));
  const plan: DeliveryPlan = { deliver: [], unsupported: [], remaining: false };
  const queued = open
    .filter((operation) => operation.state === "queued")
    .sort((a, b) => (a.operationId < b.operationId ? -1 : a.operationId > b.operationId ? 1 : 0));
  for (const operation of queued) {
    if (!supports(supportedOperations, operation.operation, operation.operand)) {
      plan.unsupported.push(operation);
    } else if ((operation.dependsOn ?? []).some((id) => openIds.has(id)) || plan.deliver.length >= limit) {
      plan.remaining = true;
    } else {
      plan.deliver.push(operation);
    }
  }
  return plan;
}

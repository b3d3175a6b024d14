import { type SupportedOperations, supports } from "../c2/manifest.js";
import { isHeld, type OperationRecord } from "./model.js";

/** Who created the UPDATE CONFIGURATION that brings an agent to its class's flow. */
export const CATCH_UP_CREATOR = "beacon:catch-up";

export interface DeliveryPlan {
  /** Queued operations to deliver now, in the order they were created. */
  deliver: OperationRecord[];
  /** Queued operations the agent's manifest no longer lists: they can never be delivered. */
  unsupported: OperationRecord[];
  /** Queued UPDATE CONFIGURATIONs a newer queued one replaces: the agent is sent the newest flow only. */
  superseded: OperationRecord[];
  /** Something stays queued after this reply (over the limit, or waiting on a dependency). */
  remaining: boolean;
}

/**
 * Chooses what one heartbeat reply carries from the agent's open operations (queued and delivered).
 * An operation waits until every operation it depends on is closed: a failed, timed out or cancelled
 * dependency cancels its dependents before it closes, so a closed dependency is a done one. The Java
 * agent drops a whole reply when one operation in it does not parse, so nothing the manifest does not
 * list goes out, and at most `limit` operations go in one reply. An agent has one UPDATE CONFIGURATION in
 * flight at most: the newest queued one replaces the others (a catch-up only when none but catch-ups are
 * queued: a rollout's batch and a catch-up that raced each queued one), and it waits while one delivered
 * earlier is still open. One held for its class's maintenance window is left as if it were not queued yet
 * (the sweeper releases it), though what depends on it waits for it.
 */
export function planDelivery(
  open: OperationRecord[],
  supportedOperations: SupportedOperations,
  limit: number,
  now: number,
): DeliveryPlan {
  const openIds = new Set(open.map((operation) => operation.operationId));
  const plan: DeliveryPlan = { deliver: [], unsupported: [], superseded: [], remaining: false };
  const queued = open
    .filter((operation) => operation.state === "queued" && !isHeld(operation, now))
    .sort((a, b) => (a.operationId < b.operationId ? -1 : a.operationId > b.operationId ? 1 : 0));
  const supported = queued.filter((operation) =>
    supports(supportedOperations, operation.operation, operation.operand),
  );
  // A catch-up brings the class's flow, so any other update (a rollout's, a person's) replaces it.
  const flowUpdates = supported.filter(isFlowUpdate);
  const newestFlowUpdate =
    flowUpdates.filter((operation) => operation.createdBy !== CATCH_UP_CREATOR).at(-1) ?? flowUpdates.at(-1);
  const flowUpdateInFlight = open.some(
    (operation) => operation.state !== "queued" && isFlowUpdate(operation),
  );
  for (const operation of queued) {
    if (!supported.includes(operation)) {
      plan.unsupported.push(operation);
    } else if (isFlowUpdate(operation) && operation !== newestFlowUpdate) {
      plan.superseded.push(operation);
    } else if (
      (isFlowUpdate(operation) && flowUpdateInFlight) ||
      (operation.dependsOn ?? []).some((id) => openIds.has(id)) ||
      plan.deliver.length >= limit
    ) {
      plan.remaining = true;
    } else {
      plan.deliver.push(operation);
    }
  }
  return plan;
}

/** An UPDATE CONFIGURATION: it sends the agent a whole flow, so one in flight replaces another. */
export const isFlowUpdate = (operation: Pick<OperationRecord, "operation" | "operand">): boolean =>
  operation.operation === "UPDATE" && operation.operand === "CONFIGURATION";

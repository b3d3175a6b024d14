import { type SupportedOperations, supports } from "./manifest.js";
import type { C2Operation } from "./model.js";

export const describeManifest = (identifier: string): C2Operation => ({
  identifier,
  operation: "DESCRIBE",
  operand: "MANIFEST",
});

/** The reply to a heartbeat Beacon could not finish: agents cannot act on an error reply. */
export const NO_OPERATIONS_REPLY: { readonly requestedOperations: readonly C2Operation[] } = Object.freeze({
  requestedOperations: Object.freeze([]),
});

/** The reply to an acknowledgement. */
export const ACK_REPLY: Readonly<Record<string, never>> = Object.freeze({});

/** A JSON reply's body in bytes as the agent API sends it (JSON text, UTF-8): what usage meters as bytes out. */
export const jsonBodyBytes = (body: unknown): number => new TextEncoder().encode(JSON.stringify(body)).length;

export interface ReplyContext {
  /** Undefined while Beacon has not seen the agent's manifest. */
  supportedOperations?: SupportedOperations;
}

/**
 * The reply body for a heartbeat, in the form both agents parse: camelCase keys, upper-case
 * operation and operand, `operation` before `operand`. The Java agent drops a whole reply when one
 * operation in it does not parse, so an operation the agent does not list is never sent. The one
 * exception is DESCRIBE MANIFEST, which every C2 agent implements: while the manifest is unknown it is how
 * Beacon learns the list.
 */
export function heartbeatReply(
  operations: C2Operation[],
  context: ReplyContext,
): { requestedOperations: C2Operation[] } {
  const deliverable = operations.filter(
    (operation) =>
      isDescribeManifest(operation) ||
      (context.supportedOperations !== undefined &&
        supports(context.supportedOperations, operation.operation, operation.operand)),
  );
  return { requestedOperations: deliverable.map(toWireForm) };
}

/**
 * DESCRIBE MANIFEST: every C2 agent takes it, whatever its manifest lists or whether Beacon knows that
 * manifest at all, so it goes to any agent.
 */
export const isDescribeManifest = (operation: Pick<C2Operation, "operation" | "operand">) =>
  operation.operation.toUpperCase() === "DESCRIBE" && operation.operand?.toUpperCase() === "MANIFEST";

function toWireForm(operation: C2Operation): C2Operation {
  const wire: C2Operation = {
    identifier: operation.identifier,
    operation: operation.operation.toUpperCase(),
  };
  if (operation.operand) wire.operand = operation.operand.toUpperCase();
  if (operation.args && Object.keys(operation.args).length > 0) wire.args = operation.args;
  if (operation.dependencies && operation.dependencies.length > 0) wire.dependencies = operation.dependencies;
  return wire;
}

/**
 * Done means the effect is seen. An agent's acknowledgement is taken as proof except where it is none:
 * the C++ agent acknowledges START and STOP FULLY_APPLIED whether or not anything started or stopped (an
 * unknown component, a flow START/STOP up to 0.99.2 that does nothing), so those wait for a heartbeat
 * that shows the run status they asked for. And an UPDATE CONFIGURATION or SYNC RESOURCE whose
 * acknowledgement was lost (agents never send one twice) is done once heartbeats report its flow id or
 * its resource digest. Plain values in and out;
 * the heartbeat knows what it saw, the lifecycle moves the operations.
 */
import { syncDigestOf } from "../assets/location.js";
import type { AckDialect, Acknowledgement, ProcessorStatus } from "../c2/model.js";
import type { OperationRecord } from "./model.js";

/** What one heartbeat shows of its agent that can prove an operation's effect. */
export interface SeenEffects {
  /** The flow the agent reports, only when it differs from the one it reported before: a flow just applied. */
  newFlowId?: string;
  /** The resource hash the agent reports (`resourceInfo.hash`), only when it differs from the one before. */
  newResourceHash?: string;
  /** The flow's run status and its processors', as in force after the heartbeat. */
  runStatus?: string;
  processors?: ProcessorStatus[];
}

/** The run status a START or STOP leaves its target in: the flow's, or one component's. */
interface RunStatusTarget {
  runStatus: "RUNNING" | "STOPPED";
  /** Absent for the whole flow. */
  componentId?: string;
}

function runStatusTargetOf(record: OperationRecord): RunStatusTarget | undefined {
  const runStatus =
    record.operation === "START" ? "RUNNING" : record.operation === "STOP" ? "STOPPED" : undefined;
  if (!runStatus) return undefined;
  switch (record.operand) {
    // The agent itself (C++ STOP c2 ends the agent): no run status shows it.
    case undefined:
    case "C2":
      return undefined;
    case "FLOW":
    case "FLOWCONTROLLER":
      return { runStatus };
    case "PROCESSOR": {
      const componentId = record.args?.processorId;
      return typeof componentId === "string" ? { runStatus, componentId } : undefined;
    }
    // C++ starts and stops a component named by its id (a name never matches: heartbeats carry ids).
    default:
      return { runStatus, componentId: record.operand };
  }
}

/** Whether an acknowledgement that the operation was applied still waits for a heartbeat to show it. */
export const awaitsEffect = (record: OperationRecord, dialect: AckDialect): boolean =>
  dialect === "cpp" && runStatusTargetOf(record) !== undefined;

const sameComponent = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Delivered operations whose effect is a value the agent reports anew, which proves them even when their
 * acknowledgement was lost, by operation and operand: the flow id an UPDATE CONFIGURATION sent, the
 * resource hash a SYNC RESOURCE leaves (`resourceInfo.hash` = its `globalHash.digest`, both agents).
 */
const REPORTED_EFFECTS: Record<string, (record: OperationRecord, seen: SeenEffects) => boolean> = {
  "UPDATE CONFIGURATION": (record, seen) =>
    seen.newFlowId !== undefined && record.args?.flowId === seen.newFlowId,
  "SYNC RESOURCE": (record, seen) =>
    seen.newResourceHash !== undefined && syncDigestOf(record.args) === seen.newResourceHash,
};

/** Whether the heartbeat shows what the open operation was meant to do. */
export function effectSeen(record: OperationRecord, seen: SeenEffects): boolean {
  if (record.state === "delivered")
    return REPORTED_EFFECTS[`${record.operation} ${record.operand ?? ""}`]?.(record, seen) ?? false;
  if (record.state !== "awaiting_effect") return false;
  const target = runStatusTargetOf(record);
  if (!target) return false;
  const { componentId } = target;
  const runStatus =
    componentId === undefined
      ? seen.runStatus
      : seen.processors?.find((processor) => sameComponent(processor.id, componentId))?.runStatus;
  return runStatus?.toUpperCase() === target.runStatus;
}

/**
 * What an acknowledgement means for a delivered operation. PARTIALLY_APPLIED counts as done (the agent
 * applied what it could; its details are kept), except for SYNC RESOURCE: an agent keeps its old resource
 * set unless every item arrived, so what depends on the set must not follow. NOT_APPLIED and
 * OPERATION_NOT_UNDERSTOOD are failures. An applied one whose agent's word is no proof of the effect awaits it.
 */
export function stateAfterAck(
  record: OperationRecord,
  ack: Pick<Acknowledgement, "state" | "dialect">,
): "done" | "failed" | "awaiting_effect" {
  switch (ack.state) {
    case "PARTIALLY_APPLIED":
      if (record.operation === "SYNC" && record.operand === "RESOURCE") return "failed";
      return awaitsEffect(record, ack.dialect) ? "awaiting_effect" : "done";
    case "FULLY_APPLIED":
    case "NO_OPERATION":
      return awaitsEffect(record, ack.dialect) ? "awaiting_effect" : "done";
    case "NOT_APPLIED":
    case "OPERATION_NOT_UNDERSTOOD":
      return "failed";
  }
}

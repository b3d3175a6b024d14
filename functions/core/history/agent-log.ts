import type {
  AckEvent,
  AgentDecommissionedEvent,
  AgentOfflineEvent,
  AgentOnlineEvent,
  BeaconEvent,
  CertificateExpiringEvent,
  HeartbeatEvent,
  OperationEvent,
} from "../events/model.js";
import { isTimeOrderedKey, timeOrderedKey } from "../paging.js";

/** The events an agent's log keeps: each names its agent. */
export type AgentLogEvent =
  | HeartbeatEvent
  | (AckEvent & { agentId: string })
  | OperationEvent
  | (CertificateExpiringEvent & { agentId: string })
  | AgentOfflineEvent
  | AgentOnlineEvent
  | AgentDecommissionedEvent;

/**
 * What an operator looks back for, not every heartbeat: a steady heartbeat a minute per agent would cost
 * one write each (100,000 agents: 144 million a day). Kept are the first sighting (the agent registered),
 * every acknowledgement and every state change of its operations (which include each flow it was sent),
 * its certificate's expiry warning, when it went offline and came back, and when the sweeper decommissioned it. A heartbeat says what the agent runs now, not whether that changed,
 * so class, manifest and flow changes are seen here only through the operations that made them.
 */
export function keptForAgent(event: BeaconEvent): event is AgentLogEvent {
  switch (event.type) {
    case "heartbeat":
      return event.firstSight;
    case "ack":
    case "certificate.expiring":
      return event.agentId !== undefined;
    case "operation":
    case "agent.offline":
    case "agent.online":
    case "agent.decommissioned":
      return true;
    default:
      return false;
  }
}

/** Orders an agent's log by time, then event id. */
export const agentLogKey = (event: Pick<AgentLogEvent, "at" | "eventId">): string =>
  timeOrderedKey(event.at, event.eventId);

export const isAgentLogKey = isTimeOrderedKey;

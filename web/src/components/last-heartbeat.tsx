import type { Schemas } from "../api/client";
import { dateTime, timeAgo } from "../format";

type Sighted = Pick<Schemas["AgentDetail"], "status" | "lastSeen">;

const lastHeartbeat = (agent: Sighted) =>
  `as of its last heartbeat, ${dateTime(agent.lastSeen)} (${timeAgo(agent.lastSeen)})`;

/**
 * What a heartbeat told of an agent that is not online is what it told then, not what runs now: its run
 * status says so beside it. Nothing for an online agent.
 */
export function AsOfLastHeartbeat({ agent }: { agent: Sighted }) {
  return agent.status === "online" ? null : <span class="muted"> {lastHeartbeat(agent)}</span>;
}

/** The same for a section of such values (processors, queues, bulletins): a note under its heading. */
export function LastHeartbeatNote({ agent }: { agent: Sighted }) {
  return agent.status === "online" ? null : (
    <p class="hint">
      The agent is {agent.status}: this is {lastHeartbeat(agent)}.
    </p>
  );
}

/**
 * An agent's kept events in words. The API gives each event as Beacon put it on the stream
 * (schemas/events/), typing only its type, id, agent and time, so the rest is read with care here.
 */

/** What every kept event has, and the fields of its type; `Schemas["AgentEvent"]` is one. */
export interface KeptEvent {
  type: string;
  at: string;
  [field: string]: unknown;
}

export interface EventInWords {
  /** What kind of event, in a word or two. */
  kind: string;
  description: string;
}

/** How a done operation was confirmed, in words. */
const CONFIRMATIONS: Readonly<Record<string, string>> = {
  ack: "its acknowledgement",
  heartbeat: "a heartbeat",
  bundle: "its acknowledgement and its stored debug bundle",
};

export function describeEvent(event: KeptEvent, locale?: string): EventInWords {
  const fields = event;
  const text = (name: string) => (typeof fields[name] === "string" ? (fields[name] as string) : undefined);
  const number = (name: string) => (typeof fields[name] === "number" ? (fields[name] as number) : undefined);
  const why = (...names: string[]) => {
    const reasons = names.map(text).filter((reason) => reason !== undefined && reason !== "");
    return reasons.length === 0 ? "" : ` (${reasons.join("; ")})`;
  };
  switch (event.type) {
    case "heartbeat": {
      const agentClass = text("agentClass");
      return fields.firstSight === true
        ? {
            kind: "registration",
            description: `Seen for the first time${agentClass ? ` in class ${agentClass}` : ""}: registered.`,
          }
        : { kind: "heartbeat", description: "Heartbeat." };
    }
    case "ack": {
      const matched = fields.matched === false ? " It matches no operation Beacon sent." : "";
      return {
        kind: "acknowledgement",
        description: `Acknowledged operation ${text("operationId") ?? "?"}: ${text("state") ?? "?"}${why("details")}.${matched}`,
      };
    }
    case "operation": {
      const what = [text("operation"), text("operand")].filter(Boolean).join(" ") || "Operation";
      const state = text("state") ?? "?";
      const from = text("from");
      const change = from ? `${from} → ${state}` : `now ${state}`;
      const confirmedBy = text("confirmedBy");
      const confirmed = confirmedBy ? `, confirmed by ${CONFIRMATIONS[confirmedBy] ?? confirmedBy}` : "";
      return {
        kind: "operation",
        description: `${what}: ${change}${confirmed}${why("ackState", "reason", "failureCause", "details")}.`,
      };
    }
    case "certificate.expiring": {
      const notAfter = number("notAfter");
      const expires =
        notAfter === undefined
          ? "soon"
          : `on ${new Date(notAfter).toLocaleString(locale, { dateStyle: "medium", timeStyle: "short" })}`;
      const days = number("warningDays");
      return {
        kind: "certificate expiring",
        description: `Certificate ${text("serial") ?? "?"} expires ${expires}${days ? `, within ${days} days` : ""}.`,
      };
    }
    case "agent.offline": {
      const lastSeen = number("lastSeen");
      const since =
        lastSeen === undefined
          ? ""
          : ` since ${new Date(lastSeen).toLocaleString(locale, { dateStyle: "medium", timeStyle: "short" })}`;
      return { kind: "offline", description: `Missed its heartbeats${since}: offline.` };
    }
    case "agent.online":
      return { kind: "online", description: "Heartbeat again after an outage: online." };
    case "agent.decommissioned": {
      const days = number("cleanUpAfterDays");
      return {
        kind: "decommissioned",
        description: `Silent longer than its class's clean-up age${days ? ` of ${days} days` : ""}: decommissioned.`,
      };
    }
    default:
      return { kind: event.type, description: "An event this console does not describe yet." };
  }
}

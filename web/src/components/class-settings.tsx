import { useState } from "preact/hooks";
import { dataOf, type Schemas } from "../api/client";
import { mayCall } from "../session";
import { useConsole } from "./console";
import { SubmitRow, useAction } from "./resource";

/** The bounds PUT /classes/{className} holds each setting to, as AgentClassChange spells them. */
const HEARTBEAT_SECONDS = { least: 1, most: 86_400 } as const;
const ACK_TIMEOUT_SECONDS = { least: 10, most: 86_400 } as const;
const DESCRIPTION_LENGTH = 1024;

/** A whole number of seconds within the bounds, or why not, in words; empty text means "leave it". */
function secondsOf(
  text: string,
  what: string,
  bounds: { least: number; most: number },
): { seconds?: number; problem?: string } {
  if (text.trim() === "") return {};
  const seconds = Number(text);
  if (!Number.isInteger(seconds) || seconds < bounds.least || seconds > bounds.most) {
    return {
      problem: `The ${what} must be a whole number of seconds from ${bounds.least} to ${bounds.most.toLocaleString("en")}.`,
    };
  }
  return { seconds };
}

/**
 * The class's description, expected heartbeat interval and acknowledgement timeout, for an operator to change;
 * each field starts at the current value, and what the form or the API refuses is said in words.
 */
export function ClassSettings(props: { agentClass: Schemas["AgentClass"]; onSaved: () => void }) {
  const { client, session } = useConsole();
  const [state, run] = useAction();
  const [problems, setProblems] = useState<string[]>([]);
  const [notice, setNotice] = useState<string>();
  const { name, description, heartbeatIntervalSeconds, ackTimeoutSeconds } = props.agentClass;
  if (!mayCall(session, "PUT /api/v1/classes/{className}")) return null;

  async function submit(event: Event) {
    event.preventDefault();
    setNotice(undefined);
    const fields = new FormData(event.currentTarget as HTMLFormElement);
    const text = (field: string) => String(fields.get(field) ?? "");
    const heartbeat = secondsOf(text("heartbeat"), "heartbeat interval", HEARTBEAT_SECONDS);
    const ackTimeout = secondsOf(text("ackTimeout"), "acknowledgement timeout", ACK_TIMEOUT_SECONDS);
    const found = [heartbeat.problem, ackTimeout.problem].filter((problem) => problem !== undefined);
    setProblems(found);
    if (found.length > 0) return;
    const described = text("description").trim();
    const change: Schemas["AgentClassChange"] = {
      ...(described !== (description ?? "") ? { description: described } : {}),
      ...(heartbeat.seconds !== undefined ? { heartbeatIntervalSeconds: heartbeat.seconds } : {}),
      ...(ackTimeout.seconds !== undefined ? { ackTimeoutSeconds: ackTimeout.seconds } : {}),
    };
    const saved = await run(() =>
      dataOf(
        client.PUT("/api/v1/classes/{className}", { params: { path: { className: name } }, body: change }),
      ),
    );
    if (saved) {
      setNotice("Saved: the class's agents are held to these from their next heartbeat.");
      props.onSaved();
    }
  }

  return (
    <details class="panel">
      <summary>Change the class's settings</summary>
      <form class="stacked" onSubmit={submit} noValidate>
        <label>
          Description
          <input name="description" maxLength={DESCRIPTION_LENGTH} defaultValue={description ?? ""} />
        </label>
        <label>
          Heartbeat interval (seconds)
          <input
            name="heartbeat"
            type="number"
            inputMode="numeric"
            min={HEARTBEAT_SECONDS.least}
            max={HEARTBEAT_SECONDS.most}
            defaultValue={String(heartbeatIntervalSeconds)}
          />
        </label>
        <p class="hint">
          How often the class's agents heartbeat: one that missed three in a row counts as offline. Set it to
          the interval the agents are configured with.
        </p>
        <label>
          Acknowledgement timeout (seconds)
          <input
            name="ackTimeout"
            type="number"
            inputMode="numeric"
            min={ACK_TIMEOUT_SECONDS.least}
            max={ACK_TIMEOUT_SECONDS.most}
            defaultValue={ackTimeoutSeconds === undefined ? "" : String(ackTimeoutSeconds)}
          />
        </label>
        <p class="hint">
          How long an agent may take to acknowledge an operation once it has it, before the operation times
          out. Until it is set, Beacon's default applies.
        </p>
        {problems.map((problem) => (
          <p key={problem} class="problem" role="alert">
            {problem}
          </p>
        ))}
        <SubmitRow state={state} label="Save settings" busyLabel="Saving…" notice={notice} />
      </form>
    </details>
  );
}

import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { dataOf, type Schemas } from "../api/client";
import { Choice } from "../components/choice";
import { ClassField } from "../components/class-field";
import { useConsole } from "../components/console";
import { DebugBundles } from "../components/debug-bundles";
import { OperationsTable } from "../components/operations-table";
import { Page } from "../components/page";
import { Loaded, Pager, SubmitRow, useAction, useInterval, useResource } from "../components/resource";
import { mayAct, mayCall } from "../session";

const PAGE_SIZE = 50;
const STATES: Schemas["OperationState"][] = [
  "queued",
  "delivered",
  "awaiting_effect",
  "done",
  "failed",
  "timed_out",
  "cancelled",
];
const OPEN_STATES: Schemas["OperationState"][] = ["queued", "delivered", "awaiting_effect"];
/** Open operations move with the agents' heartbeats; the list follows them at about that pace. */
const FOLLOW_PERIOD_MS = 3000;

export function Operations() {
  const { client, session } = useConsole();
  const location = useLocation();
  const { query } = location;
  const state = STATES.find((name) => name === query.state);
  const agentId = query.agentId || undefined;
  const cursor = query.cursor || undefined;
  const [operations, reload] = useResource(
    () =>
      dataOf(
        client.GET("/api/v1/operations", { params: { query: { state, agentId, cursor, limit: PAGE_SIZE } } }),
      ),
    `${state} ${agentId} ${cursor}`,
  );
  const following =
    operations.status === "ready" &&
    operations.data.items.some((operation) => OPEN_STATES.includes(operation.state));
  useInterval(reload, FOLLOW_PERIOD_MS, following);
  const listUrl = (next: Record<string, string | undefined>) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(next)) if (value) params.set(name, value);
    return params.size > 0 ? `/operations?${params}` : "/operations";
  };

  function applyFilters(event: Event) {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    location.route(
      listUrl({ state: String(form.get("state") ?? ""), agentId: String(form.get("agentId") ?? "").trim() }),
    );
  }

  return (
    <Page title="Operations">
      {mayAct(session, "operator") && <CreateOperations onCreated={reload} />}
      <h2>Operations, newest first</h2>
      <form
        key={`${state} ${agentId}`}
        class="filters"
        onSubmit={applyFilters}
        aria-label="Filter operations"
      >
        <Choice
          label="State"
          name="state"
          initial={state ?? ""}
          options={[["", "any"], ...STATES.map((name) => [name, name] as const)]}
        />
        <label>
          Agent id
          <input name="agentId" defaultValue={agentId ?? ""} maxLength={128} />
        </label>
        <div class="form-actions">
          <button type="submit">Apply filters</button>
          {(state || agentId) && <a href="/operations">Clear filters</a>}
        </div>
      </form>
      {following && (
        <p class="muted" role="status">
          Following the open operations as the agents take them.
        </p>
      )}
      <Loaded resource={operations} what="operations" reload={reload}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="empty">
              {state || agentId ? "No operation matches these filters." : "No operation yet."}
              {mayAct(session, "operator")
                ? " Create one above, for one agent or for the agents a selector picks."
                : ""}
            </p>
          ) : (
            <>
              <OperationsTable
                operations={page.items}
                label="Operations"
                onCancelled={mayAct(session, "operator") ? reload : undefined}
              />
              <Pager
                label="Pages of operations"
                cursor={cursor}
                nextCursor={page.nextCursor}
                urlOf={(next) => listUrl({ state, agentId, cursor: next })}
              />
            </>
          )
        }
      </Loaded>
      {mayCall(session, "GET /api/v1/debug-bundles") && <DebugBundles />}
    </Page>
  );
}

/** What an operator can ask agents for, as operation and operand. */
const KINDS = {
  "DESCRIBE MANIFEST": { operation: "DESCRIBE", operand: "MANIFEST" },
  // MiNiFi C++ answers these in the acknowledgement: the operation's Result, for operators.
  "DESCRIBE CONFIGURATION": { operation: "DESCRIBE", operand: "CONFIGURATION" },
  "DESCRIBE METRICS": { operation: "DESCRIBE", operand: "METRICS" },
  "DESCRIBE JSTACK": { operation: "DESCRIBE", operand: "JSTACK" },
  "DESCRIBE CORECOMPONENTSTATE": { operation: "DESCRIBE", operand: "CORECOMPONENTSTATE" },
  "UPDATE PROPERTIES": { operation: "UPDATE", operand: "PROPERTIES" },
  "UPDATE CONFIGURATION": { operation: "UPDATE", operand: "CONFIGURATION" },
  "START FLOW": { operation: "START", operand: "FLOW" },
  "STOP FLOW": { operation: "STOP", operand: "FLOW" },
  RESTART: { operation: "RESTART" },
  "CLEAR CONNECTION": { operation: "CLEAR", operand: "CONNECTION" },
  PAUSE: { operation: "PAUSE" },
  RESUME: { operation: "RESUME" },
  "TRANSFER DEBUG": { operation: "TRANSFER", operand: "DEBUG" },
} as const satisfies Record<string, Pick<Schemas["OperationRequest"], "operation" | "operand">>;
type Kind = keyof typeof KINDS;

/**
 * `name=value` lines, as UPDATE PROPERTIES takes them. A line without `=` or without a name is refused,
 * named by its number, rather than sent as an empty property: UPDATE PROPERTIES restarts the agents.
 */
function propertiesOf(text: string): Record<string, string> {
  const pairs = text.split("\n").flatMap((raw, index) => {
    const line = raw.trim();
    if (line === "") return [];
    const equals = line.indexOf("=");
    const name = line.slice(0, equals).trim();
    if (equals < 0 || name === "") {
      const missing = equals < 0 ? "has no '='" : "has no name before its '='";
      throw new Error(`Line ${index + 1} (${line}) ${missing}: write each property as name=value.`);
    }
    return [[name, line.slice(equals + 1).trim()]];
  });
  return Object.fromEntries(pairs);
}

function CreateOperations(props: { onCreated: () => void }) {
  const { client } = useConsole();
  const [target, setTarget] = useState<"agent" | "selector">("agent");
  const [kind, setKind] = useState<Kind>("DESCRIBE MANIFEST");
  const [state, run] = useAction();
  const [notice, setNotice] = useState<string>();

  async function submit(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = new FormData(form);
    const value = (name: string) => String(fields.get(name) ?? "").trim();
    setNotice(undefined);
    const status = value("status");
    // Built inside the action: a property line it refuses is the form's problem, and nothing is sent.
    const body = (): Schemas["OperationRequest"] => ({
      ...KINDS[kind],
      ...(target === "agent"
        ? { agentId: value("agentId") }
        : {
            selector: {
              class: value("class"),
              ...(status === "online" || status === "offline" ? { status } : {}),
              ...(value("q") ? { q: value("q") } : {}),
            },
          }),
      ...(kind === "UPDATE PROPERTIES" ? { args: propertiesOf(value("properties")) } : {}),
      ...(kind === "CLEAR CONNECTION"
        ? {
            args: Object.fromEntries(
              value("connections")
                .split(/\s+/)
                .filter(Boolean)
                .map((id, index) => [`connection-${index + 1}`, id]),
            ),
          }
        : {}),
      ...(kind === "UPDATE CONFIGURATION" ? { flowHash: value("flowHash") } : {}),
      outsideWindow: value("outsideWindow") === "refuse" ? "refuse" : "wait",
    });
    const created = await run(() => dataOf(client.POST("/api/v1/operations", { body: body() })));
    if (created) {
      const running = "selectionId" in created;
      const count = running ? created.created : (created.created ?? created.items.length);
      const skipped = created.skippedCount ?? created.skipped?.length ?? 0;
      setNotice(
        `Queued ${count} operation${count === 1 ? "" : "s"}: each agent takes its own at its next heartbeat.` +
          (running
            ? ` Beacon queues the rest in the background: selection ${created.selectionId} shows how far it got.`
            : "") +
          (skipped > 0
            ? ` ${skipped} agent${skipped === 1 ? "" : "s"} could not take it and were skipped.`
            : ""),
      );
      props.onCreated();
    }
  }

  return (
    <details class="panel">
      <summary>Create operations</summary>
      <form class="stacked" onSubmit={submit}>
        <fieldset>
          <legend>For</legend>
          <label class="inline">
            <input
              type="radio"
              name="target"
              checked={target === "agent"}
              onChange={() => setTarget("agent")}
            />
            one agent
          </label>
          <label class="inline">
            <input
              type="radio"
              name="target"
              checked={target === "selector"}
              onChange={() => setTarget("selector")}
            />
            every agent of a class a selector picks
          </label>
        </fieldset>
        {target === "agent" ? (
          <label>
            Agent id
            <input name="agentId" required maxLength={128} />
          </label>
        ) : (
          <div class="filters">
            <ClassField name="class" value="" required />
            <Choice
              label="Status"
              name="status"
              initial=""
              options={[
                ["", "any"],
                ["online", "online"],
                ["offline", "offline"],
              ]}
            />
            <label>
              Agent id or hostname contains
              <input name="q" maxLength={128} />
            </label>
          </div>
        )}
        <label>
          Operation
          <select name="kind" value={kind} onChange={(event) => setKind(event.currentTarget.value as Kind)}>
            {Object.keys(KINDS).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        {kind === "UPDATE PROPERTIES" && (
          <label>
            Properties, one name=value a line
            <textarea name="properties" rows={4} required placeholder="nifi.log.level=DEBUG" />
          </label>
        )}
        {kind === "CLEAR CONNECTION" && (
          <label>
            Connection ids, separated by spaces or lines
            <textarea name="connections" rows={3} required />
          </label>
        )}
        {kind === "UPDATE CONFIGURATION" && (
          <label>
            Flow version (its SHA-256, from the class's page)
            <input name="flowHash" required pattern="[0-9a-f]{64}" />
          </label>
        )}
        <Choice
          label="For agents outside their class's maintenance windows"
          name="outsideWindow"
          initial="wait"
          options={[
            ["wait", "hold them until the windows open"],
            ["refuse", "refuse them, and queue nothing"],
          ]}
        />
        <SubmitRow state={state} label="Queue operations" busyLabel="Queuing…" notice={notice} />
      </form>
    </details>
  );
}

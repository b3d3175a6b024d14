import { useEffect, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { describeEvent } from "../agent-events";
import { dataOf, type Schemas } from "../api/client";
import { AgentCertificates } from "../components/agent-certificates";
import { useConsole } from "../components/console";
import { AgentDebugBundles } from "../components/debug-bundles";
import { Fact } from "../components/fact";
import { FlowVersionRef, flowVersionWords } from "../components/flow-version";
import { LabelList } from "../components/labels";
import { AsOfLastHeartbeat, LastHeartbeatNote } from "../components/last-heartbeat";
import { LoadChart } from "../components/load-chart";
import { OperationsTable } from "../components/operations-table";
import { Page } from "../components/page";
import {
  type ParameterLayer,
  ParameterValues,
  ParameterValueText,
  putOutcome,
  SetParameter,
} from "../components/parameters";
import {
  ActionProblem,
  Loaded,
  SubmitRow,
  TableFrame,
  TableHead,
  useAction,
  useInterval,
  useResource,
} from "../components/resource";
import { dateTime, shortHash, timeAgo } from "../format";
import { type FlowParameter, LAYER_WORDS } from "../parameters";
import { mayAct, mayCall } from "../session";

/** An agent's hot state changes with each heartbeat; the page follows it at about that pace. */
const FOLLOW_PERIOD_MS = 5000;

export function AgentDetail() {
  const { client, session } = useConsole();
  const { params } = useRoute();
  const agentId = params.agentId ?? "";
  const path = { agentId };
  const [agent, reloadAgent] = useResource(
    () => dataOf(client.GET("/api/v1/agents/{agentId}", { params: { path } })),
    `agent ${agentId}`,
  );
  const [operations, reloadOperations] = useResource(
    () => dataOf(client.GET("/api/v1/operations", { params: { query: { agentId, limit: 20 } } })),
    `operations ${agentId}`,
  );
  useInterval(
    () => {
      reloadAgent();
      reloadOperations();
    },
    FOLLOW_PERIOD_MS,
    agent.status === "ready",
  );
  return (
    <Page title={agentId}>
      <p>
        <a href="/agents">All agents</a>
      </p>
      {mayAct(session, "operator") && agent.status === "ready" && (
        <AgentActions agentId={agentId} onQueued={reloadOperations} />
      )}
      <Loaded resource={agent} what="the agent" reload={reloadAgent}>
        {(data) => (
          <>
            <AgentLabels agentId={agentId} labels={data.labels} onChanged={reloadAgent} />
            {data.reportedLabels && (
              <section aria-labelledby="reported-labels">
                <h2 id="reported-labels">Reported labels</h2>
                <p>
                  Read by the class's label sources from what the agent reports; a label set above of the same
                  key wins.
                </p>
                <LabelList labels={data.reportedLabels} />
              </section>
            )}
            <AgentPin agent={data} onChanged={reloadAgent} />
            <AgentView agent={data} />
          </>
        )}
      </Loaded>
      <h2>Operations</h2>
      <Loaded resource={operations} what="the agent's operations" reload={reloadOperations}>
        {(data) =>
          data.items.length === 0 ? (
            <p class="empty">No operation for this agent yet.</p>
          ) : (
            <OperationsTable
              operations={data.items}
              label="The agent's operations"
              onCancelled={mayAct(session, "operator") ? reloadOperations : undefined}
            />
          )
        }
      </Loaded>
      <AgentParameters agentId={agentId} />
      <AgentDebugBundles agentId={agentId} />
      <RecentEvents agentId={agentId} />
    </Page>
  );
}

/**
 * What the agent gets, parameter by parameter, and from which layer; and the values set for it alone, which
 * override the class's.
 */
function AgentParameters({ agentId }: { agentId: string }) {
  const { client, session } = useConsole();
  const [parameters, reload] = useResource(
    () => dataOf(client.GET("/api/v1/agents/{agentId}/parameters", { params: { path: { agentId } } })),
    `parameters ${agentId}`,
  );
  const path = (name: string) => ({ params: { path: { agentId, name } } });
  const layer: ParameterLayer = {
    holder: "for this agent",
    deleteRoute: "DELETE /api/v1/agents/{agentId}/parameters/{name}",
    put: (name, value) =>
      putOutcome(client.PUT("/api/v1/agents/{agentId}/parameters/{name}", { ...path(name), body: value })),
    remove: (name) => dataOf(client.DELETE("/api/v1/agents/{agentId}/parameters/{name}", path(name))),
  };
  return (
    <section aria-labelledby="parameters">
      <h2 id="parameters">Parameters</h2>
      <Loaded resource={parameters} what="the agent's parameters" reload={reload}>
        {(data) => {
          const declared: FlowParameter[] = data.items
            .filter((parameter) => parameter.declared)
            .map(({ name, sensitive, description }) => ({
              name,
              sensitive: sensitive === true,
              description,
            }));
          const missing = data.items.filter((parameter) => parameter.declared && !parameter.layer).length;
          return (
            <>
              <p>
                {data.flowHash ? (
                  <>
                    The parameters of its class's target flow,{" "}
                    <a href={`/classes/${encodeURIComponent(data.className)}?flow=${data.flowHash}`}>
                      {shortHash(data.flowHash)}
                    </a>
                    , and any value set for it, each from the layer that gives it: the flow's default, the
                    class's value, then the agent's own.
                  </>
                ) : (
                  "Its class has no target flow yet: these are the values set for it and its class."
                )}
              </p>
              {missing > 0 && (
                <p class="notice">
                  {missing === 1
                    ? "A parameter the flow declares has"
                    : `${missing} parameters the flow declares have`}{" "}
                  no value: the agent cannot be sent this flow until one is set.
                </p>
              )}
              {data.items.length === 0 ? (
                <p class="empty">No parameter: the flow declares none and no value is set.</p>
              ) : (
                <EffectiveParameters items={data.items} />
              )}
              <h3>The agent's own values</h3>
              {data.agentValues.length === 0 ? (
                <p class="empty">None: the agent gets its class's values.</p>
              ) : (
                <ParameterValues
                  label="The agent's own parameter values"
                  entries={data.agentValues}
                  layer={layer}
                  onRemoved={reload}
                />
              )}
              {mayCall(session, "PUT /api/v1/agents/{agentId}/parameters/{name}") && (
                <SetParameter layer={layer} declared={declared} onSet={reload} />
              )}
            </>
          );
        }}
      </Loaded>
    </section>
  );
}

function EffectiveParameters({ items }: { items: Schemas["EffectiveParameter"][] }) {
  return (
    <TableFrame label="The agent's parameters">
      <table>
        <TableHead columns={["Name", "Value", "From", "Declared by the flow"]} />
        <tbody>
          {items.map((parameter) => (
            <tr key={parameter.name}>
              <td class="wrap">
                <span class="mono">{parameter.name}</span>
                {parameter.description && <div class="muted">{parameter.description}</div>}
              </td>
              <td class="wrap">
                <ParameterValueText value={parameter.value} secretRef={parameter.secretRef} />
              </td>
              <td>{parameter.layer ? LAYER_WORDS[parameter.layer] : "nothing"}</td>
              <td>{parameter.declared ? (parameter.sensitive ? "yes, sensitive" : "yes") : "no"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

const EVENTS_PER_PAGE = 20;

/** What Beacon kept of the agent's events, newest first, a page at a time. */
function RecentEvents({ agentId }: { agentId: string }) {
  const { client } = useConsole();
  const load = (cursor?: string) =>
    dataOf(
      client.GET("/api/v1/agents/{agentId}/events", {
        params: { path: { agentId }, query: { limit: EVENTS_PER_PAGE, ...(cursor ? { cursor } : {}) } },
      }),
    );
  const [first, reload] = useResource(() => load(), `events ${agentId}`);
  const [older, setOlder] = useState<Schemas["AgentEventList"]>();
  const [state, run] = useAction();
  useEffect(() => setOlder(undefined), [first]);

  async function loadMore(cursor: string) {
    const page = await run(() => load(cursor));
    if (page) setOlder({ items: [...(older?.items ?? []), ...page.items], nextCursor: page.nextCursor });
  }

  return (
    <section aria-labelledby="events">
      <h2 id="events">Recent events</h2>
      <Loaded resource={first} what="the agent's events" reload={reload}>
        {(data) => {
          if (data.items.length === 0) {
            return (
              <p class="empty">
                No event kept for this agent yet. Its registration, acknowledgements, operations and
                certificate warnings appear here a few seconds after they happen, once the stream consumer has
                read them.
              </p>
            );
          }
          const items = [...data.items, ...(older?.items ?? [])];
          const nextCursor = older ? older.nextCursor : data.nextCursor;
          return (
            <>
              <TableFrame label="The agent's recent events">
                <table>
                  <TableHead columns={["When", "Event", "What happened"]} />
                  <tbody>
                    {items.map((event) => {
                      const { kind, description } = describeEvent(event);
                      return (
                        <tr key={event.eventId}>
                          <td>
                            <time dateTime={event.at}>{dateTime(event.at)}</time>
                          </td>
                          <td>{kind}</td>
                          <td class="wrap">{description}</td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </TableFrame>
              {nextCursor && (
                <div class="pager">
                  <button
                    type="button"
                    onClick={() => loadMore(nextCursor)}
                    disabled={state.status === "busy"}
                  >
                    {state.status === "busy" ? "Loading…" : "Load more"}
                  </button>
                </div>
              )}
              <ActionProblem state={state} />
            </>
          );
        }}
      </Loaded>
    </section>
  );
}

/** The labels operators set on the agent, which the agent list and selectors match; operators change them here. */
function AgentLabels(props: {
  agentId: string;
  labels: Schemas["Labels"] | undefined;
  onChanged: () => void;
}) {
  const { client, session } = useConsole();
  const [state, run] = useAction();
  const params = { path: { agentId: props.agentId } };
  const change = async (body: Schemas["LabelChange"]) => {
    const changed = await run(() => dataOf(client.POST("/api/v1/agents/{agentId}/labels", { params, body })));
    if (changed) props.onChanged();
    return changed;
  };

  async function setLabel(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = new FormData(form);
    const key = String(fields.get("key") ?? "").trim();
    if (await change({ set: { [key]: String(fields.get("value") ?? "").trim() } })) form.reset();
  }

  const editable = mayCall(session, "POST /api/v1/agents/{agentId}/labels");
  const entries = Object.entries(props.labels ?? {});
  return (
    <section aria-labelledby="labels">
      <h2 id="labels">Labels</h2>
      {entries.length === 0 ? (
        <p class="empty">No label. Labels pick agents in the agent list and in operations' selectors.</p>
      ) : editable ? (
        <TableFrame label="The agent's labels">
          <table>
            <TableHead columns={["Label", "Value", { hidden: "Remove" }]} />
            <tbody>
              {entries.map(([key, value]) => (
                <tr key={key}>
                  <td class="mono">{key}</td>
                  <td class="mono">{value}</td>
                  <td>
                    <button
                      type="button"
                      onClick={() => change({ remove: [key] })}
                      disabled={state.status === "busy"}
                      aria-label={`Remove label ${key}`}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      ) : (
        <LabelList labels={props.labels} />
      )}
      {editable && (
        <form class="filters" onSubmit={setLabel} aria-label="Set a label">
          <label>
            Label key
            <input name="key" required maxLength={317} placeholder="site" />
          </label>
          <label>
            Value
            <input name="value" maxLength={63} placeholder="plant-7" />
          </label>
          <SubmitRow state={state} label="Set label" busyLabel="Setting…" />
        </form>
      )}
    </section>
  );
}

/**
 * The flow version the agent is pinned to, which catch-up and rollouts leave it on; operators pin it to a
 * version of its class (the one it runs unless another is picked) and unpin it here.
 */
function AgentPin(props: { agent: Schemas["AgentDetail"]; onChanged: () => void }) {
  const { client, session } = useConsole();
  const { agentId, agentClass, pinnedFlow } = props.agent;
  const [state, run] = useAction();
  const editable = mayCall(session, "PUT /api/v1/agents/{agentId}/pin");
  const [versions] = useResource(
    () =>
      dataOf(
        client.GET("/api/v1/classes/{className}/flows", {
          params: { path: { className: agentClass }, query: { limit: 100 } },
        }),
      ),
    `versions ${agentClass}`,
  );
  const params = { path: { agentId } };

  async function pin(event: Event) {
    event.preventDefault();
    const flowHash = String(new FormData(event.currentTarget as HTMLFormElement).get("flowHash") ?? "");
    const body = flowHash === "" ? {} : { flowHash };
    if (await run(() => dataOf(client.PUT("/api/v1/agents/{agentId}/pin", { params, body }))))
      props.onChanged();
  }

  async function unpin() {
    if (await run(() => dataOf(client.DELETE("/api/v1/agents/{agentId}/pin", { params })))) props.onChanged();
  }

  return (
    <section aria-labelledby="pin">
      <h2 id="pin">Pin</h2>
      {pinnedFlow ? (
        <dl class="facts">
          <Fact term="Pinned to">
            <FlowVersionRef
              hash={pinnedFlow.flowHash}
              name={
                versions.status === "ready"
                  ? versions.data.items.find((version) => version.hash === pinnedFlow.flowHash)
                  : undefined
              }
            />
          </Fact>
          <Fact term="Pinned">
            {dateTime(pinnedFlow.pinnedAt)} by {pinnedFlow.pinnedBy}
          </Fact>
        </dl>
      ) : (
        <p class="empty">Not pinned: catch-up and rollouts bring it to its class's flow.</p>
      )}
      {editable && (
        <form class="filters" onSubmit={pin} aria-label="Pin to a flow version">
          <label>
            Flow version
            <select name="flowHash">
              <option value="">The one it runs</option>
              {versions.status === "ready" &&
                versions.data.items.map((version) => (
                  <option key={version.hash} value={version.hash}>
                    {flowVersionWords(version.hash, version)}
                  </option>
                ))}
            </select>
          </label>
          <SubmitRow state={state} label={pinnedFlow ? "Pin again" : "Pin"} busyLabel="Pinning…" />
          {pinnedFlow && (
            <button type="button" onClick={unpin} disabled={state.status === "busy"}>
              Unpin
            </button>
          )}
        </form>
      )}
    </section>
  );
}

function AgentView({ agent }: { agent: Schemas["AgentDetail"] }) {
  const { device, statusSummary, system } = agent;
  return (
    <>
      <section aria-labelledby="identity">
        <h2 id="identity">Identity and status</h2>
        <dl class="facts">
          <Fact term="Class">
            <a href={`/agents?class=${encodeURIComponent(agent.agentClass)}`}>{agent.agentClass}</a>
          </Fact>
          <Fact term="Status">
            <span class={`state state-${agent.status}`}>{agent.status}</span>
          </Fact>
          <Fact term="Last seen">
            {timeAgo(agent.lastSeen)} ({dateTime(agent.lastSeen)}
            {agent.lastSeenFrom === "registry" ? ", from the registry's checkpoint" : ""})
          </Fact>
          <Fact term="First seen">{dateTime(agent.firstSeen)}</Fact>
          <Fact term="Flow">
            <FlowVersionRef hash={agent.flowId} name={agent.flowVersion} />
          </Fact>
          <Fact term="Flow run status">
            {agent.runStatus ?? "—"}
            <AsOfLastHeartbeat agent={agent} />
          </Fact>
          <Fact term="Binary">{agent.binaryName ?? "not known yet"}</Fact>
          <Fact term="Manifest">
            <span class="mono">{agent.manifestHash ?? "not known yet"}</span>
          </Fact>
        </dl>
      </section>
      <section aria-labelledby="device">
        <h2 id="device">Device</h2>
        <LastHeartbeatNote agent={agent} />
        <dl class="facts">
          <Fact term="Hostname">{device?.hostname ?? "—"}</Fact>
          <Fact term="IP address">{device?.ipAddress ?? "—"}</Fact>
          <Fact term="Operating system">{device?.operatingSystem ?? "—"}</Fact>
          <Fact term="Architecture">{device?.machineArch ?? "—"}</Fact>
          <Fact term="Cores">{device?.vCores ?? "—"}</Fact>
          <Fact term="CPU in use">
            {system?.cpuUtilization === undefined ? "—" : `${Math.round(system.cpuUtilization * 100)} %`}
          </Fact>
          <Fact term="Queued flow files">{statusSummary?.queuedFlowFiles ?? "—"}</Fact>
          <Fact term="Back-pressured queues">{statusSummary?.backPressuredQueues ?? "—"}</Fact>
        </dl>
      </section>
      <section aria-labelledby="load">
        <h2 id="load">Load and queues over time</h2>
        <LoadChart samples={agent.loadSamples ?? []} />
      </section>
      <h2>Processors</h2>
      <LastHeartbeatNote agent={agent} />
      {agent.processors?.length ? (
        <TableFrame label="Processors">
          <table>
            <TableHead columns={["Processor", "Run status"]} />
            <tbody>
              {agent.processors.map((processor) => (
                <tr key={processor.id}>
                  <td class="mono">{processor.id}</td>
                  <td>{processor.runStatus ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      ) : (
        <p class="empty">The agent reports no processor statuses.</p>
      )}
      <h2>Queues</h2>
      <LastHeartbeatNote agent={agent} />
      {agent.queues?.length ? (
        <TableFrame label="Queues">
          <table>
            <TableHead columns={["Queue", "Flow files", "Bytes", "Back pressure"]} />
            <tbody>
              {agent.queues.map((queue) => (
                <tr key={queue.id}>
                  <td>{queue.name ?? queue.id}</td>
                  <td>
                    {queue.size ?? "—"}
                    {queue.sizeMax ? ` of ${queue.sizeMax}` : ""}
                  </td>
                  <td>
                    {queue.dataSize ?? "—"}
                    {queue.dataSizeMax ? ` of ${queue.dataSizeMax}` : ""}
                  </td>
                  <td>{queue.backPressure ? "yes" : "no"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      ) : (
        <p class="empty">The agent reports no queues.</p>
      )}
      <h2>Bulletins</h2>
      <LastHeartbeatNote agent={agent} />
      {agent.bulletins?.length ? (
        <ul class="bulletins">
          {agent.bulletins.map((bulletin, index) => (
            // Bulletins carry no id; the list is replaced whole, in the agent's order.
            <li key={index}>
              <strong>{bulletin.level ?? "INFO"}</strong> {bulletin.sourceName ?? ""}:{" "}
              {bulletin.message ?? ""}
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">No bulletins.</p>
      )}
      <AgentCertificates agent={agent} />
    </>
  );
}

/** What an operator may do to one agent; the API checks the role again. */
function AgentActions(props: { agentId: string; onQueued: () => void }) {
  const { client } = useConsole();
  const location = useLocation();
  const [state, run] = useAction();
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<string>();
  const path = { agentId: props.agentId };

  async function describe() {
    const created = await run(() =>
      dataOf(
        client.POST("/api/v1/operations", {
          body: { agentId: props.agentId, operation: "DESCRIBE", operand: "MANIFEST" },
        }),
      ),
    );
    if (created) {
      setNotice("Queued: the agent is asked for its manifest at its next heartbeat.");
      props.onQueued();
    }
  }

  async function decommission() {
    const done = await run(() => dataOf(client.DELETE("/api/v1/agents/{agentId}", { params: { path } })));
    if (done) location.route("/agents");
  }

  return (
    <section aria-labelledby="actions" class="actions">
      <h2 id="actions">Actions</h2>
      <div class="button-row">
        <button type="button" onClick={describe} disabled={state.status === "busy"}>
          Ask for its manifest
        </button>
        {confirming ? (
          <>
            <button type="button" class="danger" onClick={decommission} disabled={state.status === "busy"}>
              Decommission {props.agentId}
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Decommission…
          </button>
        )}
      </div>
      {confirming && (
        <p class="notice">
          Decommissioning revokes the agent's own certificates and deletes it from the registry. An agent that
          heartbeats again with a fleet certificate registers anew.
        </p>
      )}
      {notice && <p role="status">{notice}</p>}
      <ActionProblem state={state} />
    </section>
  );
}

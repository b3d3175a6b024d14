import { useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { type ConsoleClient, dataOf, type Schemas } from "../api/client";
import { ClassSettings } from "../components/class-settings";
import { CleanUpAgeForm, cleanUpAgeText } from "../components/clean-up-age";
import { useConsole } from "../components/console";
import { Fact } from "../components/fact";
import { CopyButton, FlowVersionRef, flowVersionText, flowVersionWords } from "../components/flow-version";
import { MaintenanceWindowsForm, windowLine } from "../components/maintenance-windows";
import { Page } from "../components/page";
import { type ParameterLayer, ParameterValues, putOutcome, SetParameter } from "../components/parameters";
import { RelabelFlow } from "../components/relabel-flow";
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
import { ClassResources } from "../components/resource-set";
import { flowContentType } from "../flow-file";
import { dateTime, shortHash } from "../format";
import { declaredIn } from "../parameters";
import { mayAct, mayCall } from "../session";

/** A class, its flow versions, and the validation report of the version the URL names (`?flow=<hash>`). */
export function ClassDetail() {
  const { client, session } = useConsole();
  const { params } = useRoute();
  const { query, route } = useLocation();
  const className = params.className ?? "";
  const path = { className };
  const flowHash = query.flow || undefined;
  const [agentClass, reloadClass] = useResource(
    () => dataOf(client.GET("/api/v1/classes/{className}", { params: { path } })),
    className,
  );
  const [versions, reloadVersions] = useResource(
    () =>
      dataOf(client.GET("/api/v1/classes/{className}/flows", { params: { path, query: { limit: 100 } } })),
    className,
  );
  const classUrl = `/classes/${encodeURIComponent(className)}`;
  const [relabelled, setRelabelled] = useState<string>();
  // The names of the versions the page shows by hash: those of the class's first 100 versions.
  const names = new Map<string, Schemas["FlowVersionName"]>(
    versions.status === "ready" ? versions.data.items.map((version) => [version.hash, version]) : [],
  );
  return (
    <Page title={className}>
      <p>
        <a href="/classes">All classes</a> ·{" "}
        <a href={`/agents?class=${encodeURIComponent(className)}`}>its agents</a> ·{" "}
        <a href={`${classUrl}/designer`}>design its flow</a>
      </p>
      <Loaded resource={agentClass} what="the class" reload={reloadClass}>
        {(data) => (
          <>
            <ClassFacts agentClass={data} />
            <ClassSettings agentClass={data} onSaved={reloadClass} />
            <ClassCleanUp agentClass={data} onSaved={reloadClass} />
            <ClassWindows agentClass={data} onSaved={reloadClass} />
            <ClassApproval agentClass={data} onSaved={reloadClass} />
          </>
        )}
      </Loaded>
      {mayAct(session, "operator") && (
        <UploadFlow
          className={className}
          onPublished={(hash) => {
            reloadVersions();
            route(`${classUrl}?${new URLSearchParams({ flow: hash })}`);
          }}
        />
      )}
      <h2>Flow versions</h2>
      <Loaded resource={versions} what="flow versions" reload={reloadVersions}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="empty">
              No flow version yet.{" "}
              {mayAct(session, "operator") ? "Publish one above" : "An operator publishes one"}: a MiNiFi Java{" "}
              <code>flow.json</code>, or a MiNiFi C++ configuration in JSON or YAML.
            </p>
          ) : (
            <FlowVersions
              className={className}
              mayRelabel={mayAct(session, "operator")}
              onRelabelled={(version) => {
                setRelabelled(
                  `${version.hash.slice(0, 12)} is now ${flowVersionText(version) || "unlabelled"}.`,
                );
                reloadVersions();
              }}
              versions={page.items}
              target={agentClass.status === "ready" ? agentClass.data.flow?.target : undefined}
              selected={flowHash}
              classUrl={classUrl}
            />
          )
        }
      </Loaded>
      {relabelled && <p role="status">{relabelled}</p>}
      <RunningFlows
        className={className}
        names={names}
        mayAdopt={mayAct(session, "operator")}
        onAdopted={() => {
          reloadClass();
          reloadVersions();
        }}
      />
      <ClassParameters
        className={className}
        flowHashes={[agentClass.status === "ready" ? agentClass.data.flow?.target : undefined, flowHash]}
      />
      <ClassResources className={className} />
      {flowHash && <Validation className={className} flowHash={flowHash} name={names.get(flowHash)} />}
      {flowHash && (
        <p>
          <a href={`${classUrl}/designer?${new URLSearchParams({ version: flowHash })}`}>
            Open {flowVersionWords(flowHash, names.get(flowHash))} in the designer
          </a>
        </p>
      )}
      {flowHash && mayAct(session, "operator") && (
        <p>
          <a href={`/rollouts?${new URLSearchParams({ className, flow: flowHash })}`}>
            Start a rollout of {flowVersionWords(flowHash, names.get(flowHash))}
          </a>
        </p>
      )}
    </Page>
  );
}

function ClassFacts({ agentClass }: { agentClass: Schemas["AgentClass"] }) {
  return (
    <dl class="facts">
      <div>
        <dt>Description</dt>
        <dd>{agentClass.description ?? "—"}</dd>
      </div>
      <div>
        <dt>Agents</dt>
        <dd>
          {agentClass.agents.total} ({agentClass.agents.online} online, {agentClass.agents.offline} offline)
        </dd>
      </div>
      <div>
        <dt>Heartbeat interval</dt>
        <dd>{agentClass.heartbeatIntervalSeconds} s</dd>
      </div>
      <div>
        <dt>Acknowledgement timeout</dt>
        <dd>
          {agentClass.ackTimeoutSeconds === undefined
            ? "Beacon's default"
            : `${agentClass.ackTimeoutSeconds} s`}
        </dd>
      </div>
      <div>
        <dt>Target flow</dt>
        <dd>
          {agentClass.flow ? (
            <FlowVersionRef hash={agentClass.flow.target} name={agentClass.flow.targetVersion} />
          ) : (
            "none yet: a rollout sets it"
          )}
        </dd>
      </div>
      <div>
        <dt>Rollout under way</dt>
        <dd>
          {agentClass.activeRolloutId === undefined ? (
            "none"
          ) : (
            <a href={`/rollouts/${encodeURIComponent(agentClass.activeRolloutId)}`}>
              {agentClass.activeRolloutId}
            </a>
          )}
        </dd>
      </div>
    </dl>
  );
}

/** Changes the fields of the class the change gives. */
const changeClass = (client: ConsoleClient, className: string, change: Schemas["AgentClassChange"]) =>
  dataOf(client.PUT("/api/v1/classes/{className}", { params: { path: { className } }, body: change }));

/**
 * The class's clean-up age, its own or the tenant's default (which every role may read), and, for an
 * operator, a form that sets its own or unsets it.
 */
function ClassCleanUp(props: { agentClass: Schemas["AgentClass"]; onSaved: () => void }) {
  const { client, session } = useConsole();
  const { name, cleanUpAfterDays } = props.agentClass;
  const [settings] = useResource(() => dataOf(client.GET("/api/v1/settings")), "settings");
  const tenantDefault = settings.status === "ready" ? settings.data.cleanUpAfterDays : undefined;
  const defaultText = `the tenant's default: ${cleanUpAgeText(tenantDefault, "never, silent agents are kept")}`;
  return (
    <>
      <dl class="facts">
        <Fact term="Clean-up of silent agents">
          {cleanUpAfterDays === undefined
            ? defaultText
            : `${cleanUpAgeText(cleanUpAfterDays, "")}, the class's own`}
        </Fact>
      </dl>
      {mayAct(session, "operator") && (
        <details class="panel">
          <summary>Change the clean-up age</summary>
          <CleanUpAgeForm
            current={cleanUpAfterDays}
            unsetMeans="the tenant's default applies"
            save={(days) => changeClass(client, name, { cleanUpAfterDays: days })}
            onSaved={props.onSaved}
          />
        </details>
      )}
    </>
  );
}

/** The class's maintenance windows and, for an operator, a form that changes them. */
function ClassWindows(props: { agentClass: Schemas["AgentClass"]; onSaved: () => void }) {
  const { client, session } = useConsole();
  const { name, maintenanceWindows } = props.agentClass;
  return (
    <>
      <dl class="facts">
        <Fact term="Maintenance windows">
          {maintenanceWindows?.length ? maintenanceWindows.map(windowLine).join("; ") : "none: always open"}
        </Fact>
      </dl>
      {mayAct(session, "operator") && (
        <details class="panel">
          <summary>Change the maintenance windows</summary>
          <MaintenanceWindowsForm
            current={maintenanceWindows}
            save={(windows) => changeClass(client, name, { maintenanceWindows: windows })}
            onSaved={props.onSaved}
          />
        </details>
      )}
    </>
  );
}

/** Whether the class's rollouts wait for a second operator's approval, and, for an operator, the switch. */
function ClassApproval(props: { agentClass: Schemas["AgentClass"]; onSaved: () => void }) {
  const { client, session } = useConsole();
  const [state, run] = useAction();
  const { name, requireApproval } = props.agentClass;
  async function toggle() {
    const saved = await run(() =>
      dataOf(
        client.PUT("/api/v1/classes/{className}", {
          params: { path: { className: name } },
          body: { requireApproval: !requireApproval },
        }),
      ),
    );
    if (saved) props.onSaved();
  }
  return (
    <>
      <dl class="facts">
        <Fact term="Rollouts">
          {requireApproval
            ? "wait for an operator other than their creator to approve them"
            : "start without approval"}
        </Fact>
      </dl>
      {mayAct(session, "operator") && (
        <div class="button-row">
          <button type="button" onClick={toggle} disabled={state.status === "busy"}>
            {requireApproval ? "Let rollouts start without approval" : "Require a second operator's approval"}
          </button>
        </div>
      )}
      <ActionProblem state={state} />
    </>
  );
}

function FlowVersions(props: {
  className: string;
  mayRelabel: boolean;
  onRelabelled: (version: Schemas["FlowVersion"]) => void;
  versions: Schemas["FlowVersion"][];
  target: string | undefined;
  selected: string | undefined;
  classUrl: string;
}) {
  return (
    <TableFrame label="Flow versions">
      <table>
        <TableHead
          columns={[
            "Version",
            "Format",
            "Size",
            "Processor types",
            "Published",
            "By",
            ...(props.mayRelabel ? [{ hidden: "Actions" }] : []),
          ]}
        />
        <tbody>
          {props.versions.map((version) => (
            <tr key={version.hash} aria-current={version.hash === props.selected ? "true" : undefined}>
              <td class="mono">
                <a href={`${props.classUrl}?${new URLSearchParams({ flow: version.hash })}`}>
                  <FlowVersionRef hash={version.hash} name={version} copy={false} />
                  <span class="visually-hidden"> validation report of {version.hash}</span>
                </a>{" "}
                <CopyButton text={version.hash} what={`flow hash ${version.hash}`} />
                {version.hash === props.target && <span class="badge">target</span>}
              </td>
              <td>{version.format}</td>
              <td>{version.sizeBytes} bytes</td>
              <td>{version.processorTypes.length}</td>
              <td>{dateTime(version.createdAt)}</td>
              <td>{version.createdBy}</td>
              {props.mayRelabel && (
                <td>
                  <RelabelFlow
                    className={props.className}
                    version={version}
                    onRelabelled={props.onRelabelled}
                  />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

/** Publishes the file's bytes as they are: the version's hash is theirs, as `sha256sum` prints it. */
function UploadFlow(props: { className: string; onPublished: (hash: string) => void }) {
  const { client } = useConsole();
  const [state, run] = useAction();
  const [notice, setNotice] = useState<string>();

  async function submit(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = new FormData(form);
    const file = fields.get("flow");
    if (!(file instanceof File)) return;
    setNotice(undefined);
    const label = String(fields.get("label") ?? "").trim() || undefined;
    const contentType = flowContentType(file.name);
    const published = await run(async () => {
      // A browser offers an empty file like any other: say so, where the last attempt's problem was.
      if (file.size === 0) throw new Error(`${file.name} is empty (0 bytes): choose the flow file itself.`);
      const text = await file.text();
      const result = await client.POST("/api/v1/classes/{className}/flows", {
        params: { path: { className: props.className }, query: { label } },
        body: text,
        bodySerializer: (body) => body,
        headers: { "content-type": contentType },
      });
      return { version: await dataOf(Promise.resolve(result)), created: result.response.status === 201 };
    });
    if (published) {
      form.reset();
      setNotice(
        `${published.created ? "Published" : "Already published"} ${published.version.hash} (${published.version.format}). It is ${flowVersionText(published.version) || "unnumbered"}.`,
      );
      props.onPublished(published.version.hash);
    }
  }

  return (
    <details class="panel">
      <summary>Publish a flow version</summary>
      <form class="stacked" onSubmit={submit}>
        <label>
          Flow file (MiNiFi Java flow.json, C++ JSON or YAML; at most 5 MB)
          <input
            type="file"
            name="flow"
            required
            accept=".json,.yaml,.yml,application/json,application/yaml"
          />
        </label>
        <label>
          Label (optional: what people call this version, as "kafka tls")
          <input type="text" name="label" maxLength={64} />
        </label>
        <SubmitRow state={state} label="Publish" busyLabel="Publishing…" notice={notice} />
      </form>
    </details>
  );
}

function Validation(props: { className: string; flowHash: string; name?: Schemas["FlowVersionName"] }) {
  const { client } = useConsole();
  const path = { className: props.className, hash: props.flowHash };
  const [report, reload] = useResource(
    () => dataOf(client.GET("/api/v1/classes/{className}/flows/{hash}/validation", { params: { path } })),
    `${props.className} ${props.flowHash}`,
  );
  return (
    <section aria-labelledby="validation">
      <h2 id="validation">Validation of {flowVersionWords(props.flowHash, props.name)}</h2>
      <Loaded resource={report} what="the validation report" reload={reload}>
        {(data) => (
          <>
            <p class={data.compatible ? "verdict good" : "verdict bad"}>
              {data.agentCount === 0
                ? "The class has no agent to check against yet."
                : data.compatible
                  ? `All ${data.agentCount} agents of the class can run this flow.`
                  : `${data.incompatibleAgentCount} of ${data.agentCount} agents cannot run this flow.`}
              {data.truncated && " (The report covers the class's first 5,000 agents.)"}
            </p>
            {data.manifests.length > 0 && (
              <TableFrame label="Validation per manifest">
                <table>
                  <TableHead
                    columns={["Manifest", "Agents", "Can run it", "Missing types", "Agents on it"]}
                  />
                  <tbody>
                    {data.manifests.map((manifest) => (
                      <tr key={manifest.manifestId ?? "none"}>
                        <td class="mono">
                          {manifest.manifestId ? shortHash(manifest.manifestId) : "none known"}
                          {!manifest.manifestKnown && <div class="muted">not known to Beacon</div>}
                        </td>
                        <td>{manifest.agentCount}</td>
                        <td>
                          <span class={`state state-${manifest.compatible ? "done" : "failed"}`}>
                            {manifest.compatible ? "yes" : "no"}
                          </span>
                        </td>
                        <td class="wrap">
                          {[
                            ...(manifest.missingProcessorTypes ?? []),
                            ...(manifest.missingControllerServiceTypes ?? []),
                          ].join(", ") || "—"}
                        </td>
                        <td class="wrap">
                          {manifest.agentIds.slice(0, 5).join(", ")}
                          {manifest.agentIds.length > 5 ? ", …" : ""}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableFrame>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}

/** How often a requested adoption is read again: its first read after the agent's bundle arrives settles it. */
const ADOPTION_FOLLOW_MS = 2_000;

/**
 * The flow ids the class's agents report, grouped, and an Adopt action for each Beacon does not hold: Beacon
 * fetches it from an agent running it and keeps it as a version that counts them as on it.
 */
function RunningFlows(props: {
  className: string;
  /** The names of the class's versions by hash. */
  names: ReadonlyMap<string, Schemas["FlowVersionName"]>;
  mayAdopt: boolean;
  onAdopted: () => void;
}) {
  const { client } = useConsole();
  const path = { className: props.className };
  const [running, reload] = useResource(
    () => dataOf(client.GET("/api/v1/classes/{className}/running-flows", { params: { path } })),
    props.className,
  );
  const [state, run] = useAction();
  const [adoption, setAdoption] = useState<Schemas["Adoption"]>();
  const following = adoption?.state === "requested";

  useInterval(
    async () => {
      if (!adoption) return;
      const read = await run(() =>
        dataOf(
          client.GET("/api/v1/classes/{className}/adoptions/{adoptionId}", {
            params: { path: { className: props.className, adoptionId: adoption.adoptionId } },
          }),
        ),
      );
      if (!read || read.state === "requested") return;
      setAdoption(read);
      reload();
      if (read.state === "adopted") props.onAdopted();
    },
    ADOPTION_FOLLOW_MS,
    following,
  );

  async function adopt(flowId: string) {
    const requested = await run(() =>
      dataOf(client.POST("/api/v1/classes/{className}/adoptions", { params: { path }, body: { flowId } })),
    );
    if (requested) setAdoption(requested);
  }

  return (
    <section aria-labelledby="running-flows">
      <h2 id="running-flows">Running flows</h2>
      <Loaded resource={running} what="the running flows" reload={reload}>
        {(data) =>
          data.flows.length === 0 ? (
            <p class="empty">No agent of the class reports a flow yet.</p>
          ) : (
            <TableFrame label="Flow ids the agents report">
              <table>
                <TableHead
                  columns={["Flow id", "Agents", "Some of them", "Held by Beacon", { hidden: "Adopt" }]}
                />
                <tbody>
                  {data.flows.map((flow) => (
                    <tr key={flow.flowId}>
                      <td class="mono">{flow.flowId}</td>
                      <td>{flow.agentCount}</td>
                      <td class="wrap">{flow.agentIds.join(", ")}</td>
                      <td>
                        {flow.flowHash ? (
                          <FlowVersionRef
                            hash={flow.flowHash}
                            name={props.names.get(flow.flowHash)}
                            copy={false}
                          />
                        ) : (
                          "no"
                        )}
                      </td>
                      <td>
                        {!flow.flowHash && props.mayAdopt && (
                          <button
                            type="button"
                            disabled={state.status === "busy" || following}
                            onClick={() => adopt(flow.flowId)}
                          >
                            Adopt<span class="visually-hidden"> {flow.flowId}</span>
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableFrame>
          )
        }
      </Loaded>
      {adoption && (
        <p role="status">
          {adoption.state === "requested" &&
            `Fetching ${adoption.flowId} from ${adoption.agentId}: it is asked for its debug bundle…`}
          {adoption.state === "adopted" &&
            `Adopted ${adoption.flowId} as ${adoption.flowHash ? flowVersionWords(adoption.flowHash, props.names.get(adoption.flowHash)) : "a version"}${adoption.current ? ", now the class's target" : ""}.`}
          {adoption.state === "failed" && `The adoption of ${adoption.flowId} failed: ${adoption.reason}`}
        </p>
      )}
      <ActionProblem state={state} />
    </section>
  );
}

/**
 * The values set for the class, which its agents get over the flow's defaults. The names offered are those its
 * target version declares and, when the page shows another version's report, that version's too: the one an
 * operator publishes next needs its values before its rollout.
 */
function ClassParameters(props: { className: string; flowHashes: (string | undefined)[] }) {
  const { client, session } = useConsole();
  const path = { className: props.className };
  const hashes = [...new Set(props.flowHashes.filter((hash) => hash !== undefined))];
  const [values, reloadValues] = useResource(
    () => dataOf(client.GET("/api/v1/classes/{className}/parameters", { params: { path } })),
    props.className,
  );
  const [declared, reloadDeclared] = useResource(
    async () =>
      declaredIn(
        await Promise.all(
          hashes.map(
            async (hash) =>
              (
                await dataOf(
                  client.GET("/api/v1/classes/{className}/flows/{hash}", {
                    params: { path: { ...path, hash } },
                  }),
                )
              ).parameters,
          ),
        ),
      ),
    `${props.className} ${hashes.join(" ")}`,
  );
  const layer: ParameterLayer = {
    holder: "for the class",
    deleteRoute: "DELETE /api/v1/classes/{className}/parameters/{name}",
    put: (name, value) =>
      putOutcome(
        client.PUT("/api/v1/classes/{className}/parameters/{name}", {
          params: { path: { ...path, name } },
          body: value,
        }),
      ),
    remove: (name) =>
      dataOf(
        client.DELETE("/api/v1/classes/{className}/parameters/{name}", {
          params: { path: { ...path, name } },
        }),
      ),
  };
  return (
    <section aria-labelledby="class-parameters">
      <h2 id="class-parameters">Parameters</h2>
      <Loaded resource={values} what="the class's parameter values" reload={reloadValues}>
        {(data) =>
          data.items.length === 0 ? (
            <p class="empty">
              No parameter value set for the class: its agents get the flow's defaults, and their own values.
            </p>
          ) : (
            <ParameterValues
              label="The class's parameter values"
              entries={data.items}
              layer={layer}
              onRemoved={reloadValues}
            />
          )
        }
      </Loaded>
      {mayCall(session, "PUT /api/v1/classes/{className}/parameters/{name}") && (
        <Loaded resource={declared} what="the parameters the flow declares" reload={reloadDeclared}>
          {(parameters) => <SetParameter layer={layer} declared={parameters} onSet={reloadValues} />}
        </Loaded>
      )}
    </section>
  );
}

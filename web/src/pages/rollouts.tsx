import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { type ConsoleClient, dataOf, type Schemas } from "../api/client";
import { ClassField } from "../components/class-field";
import { Clipped } from "../components/clipped";
import { useConsole } from "../components/console";
import { Page } from "../components/page";
import {
  Loaded,
  Pager,
  SubmitRow,
  TableFrame,
  TableHead,
  useAction,
  useResource,
} from "../components/resource";
import { shortHash, timeAgo } from "../format";
import { type RolloutTargetKind, rolloutTargetOf } from "../rollout-target";
import { mayAct, mayCall } from "../session";

const PAGE_SIZE = 50;
/** The groups the form offers are read in pages of the API's largest size. */
const GROUPS_PAGE_SIZE = 100;

/** Rollouts, newest first (`?className=` for one class's), and the form that starts one. */
export function Rollouts() {
  const { client, session } = useConsole();
  const { query } = useLocation();
  const className = query.className || undefined;
  const cursor = query.cursor || undefined;
  const [rollouts, reload] = useResource(
    () =>
      dataOf(client.GET("/api/v1/rollouts", { params: { query: { className, cursor, limit: PAGE_SIZE } } })),
    `${className} ${cursor}`,
  );
  const listUrl = (extra: Record<string, string>) => {
    const params = new URLSearchParams({ ...(className ? { className } : {}), ...extra });
    return `/rollouts${params.size > 0 ? `?${params}` : ""}`;
  };
  return (
    <Page title="Rollouts">
      {mayAct(session, "operator") && <StartRollout className={className} flowHash={query.flow} />}
      <h2>{className ? `Rollouts of ${className}` : "All rollouts"}</h2>
      {className && (
        <p>
          <a href="/rollouts">Every class's rollouts</a>
        </p>
      )}
      <Loaded resource={rollouts} what="rollouts" reload={reload}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="empty">
              No rollout yet. Publish a flow version to a class on its page under{" "}
              <a href="/classes">Classes and flows</a>, then start a rollout of it here.
            </p>
          ) : (
            <>
              <TableFrame label="Rollouts">
                <table>
                  <TableHead
                    columns={[
                      "Rollout",
                      "Class",
                      "State",
                      "Version",
                      "Batches",
                      "Healthy",
                      "Failed",
                      "Started",
                    ]}
                  />
                  <tbody>
                    {page.items.map((rollout) => (
                      <tr key={rollout.rolloutId}>
                        <td>
                          <a href={`/rollouts/${encodeURIComponent(rollout.rolloutId)}`}>
                            <Clipped text={rollout.rolloutId} mono />
                          </a>
                        </td>
                        <td>
                          <a href={listUrl({ className: rollout.className })}>{rollout.className}</a>
                        </td>
                        <td>
                          <span class={`state state-${rollout.state}`}>{rollout.state}</span>
                        </td>
                        <td class="mono">{shortHash(rollout.toFlow)}</td>
                        <td>{rollout.batches}</td>
                        <td>{rollout.counts.healthy}</td>
                        <td>{rollout.counts.failed}</td>
                        <td>{timeAgo(rollout.createdAt)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableFrame>
              <Pager
                label="Pages of rollouts"
                cursor={cursor}
                nextCursor={page.nextCursor}
                urlOf={(next) => listUrl(next ? { cursor: next } : {})}
              />
            </>
          )
        }
      </Loaded>
    </Page>
  );
}

type Share = Schemas["RolloutPlan"]["canary"];

/** The browser's time zone, in which a datetime-local field's value is read. */
const BROWSER_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A datetime-local value (the browser's wall-clock time, no zone) as the API's ISO instant in UTC. */
function startAtOf(local: string): string | undefined {
  return local === "" ? undefined : new Date(local).toISOString();
}

/** Every group's name, page after page: a rollout may take any of them. */
async function groupNamesOf(client: ConsoleClient): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await dataOf(
      client.GET("/api/v1/groups", { params: { query: { cursor, limit: GROUPS_PAGE_SIZE } } }),
    );
    names.push(...page.items.map((group) => group.name));
    cursor = page.nextCursor;
  } while (cursor);
  return names;
}

function shareOf(amount: string, unit: string): Share {
  return unit === "percent" ? { percent: Number(amount) } : { count: Number(amount) };
}

/** The plan's fields start at Beacon's defaults, which the API applies to any left out. */
function StartRollout(props: { className: string | undefined; flowHash: string | undefined }) {
  const { client, session } = useConsole();
  const { route } = useLocation();
  // A session limited to classes picks one of them, the first to begin with.
  const [className, setClassName] = useState(props.className ?? session.classes?.[0] ?? "");
  const [flowHash, setFlowHash] = useState(props.flowHash ?? "");
  const [target, setTarget] = useState<RolloutTargetKind>("class");
  const [state, run] = useAction();
  const validClass = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(className);
  const [versions] = useResource(
    () =>
      validClass
        ? dataOf(
            client.GET("/api/v1/classes/{className}/flows", {
              params: { path: { className }, query: { limit: 100 } },
            }),
          )
        : Promise.resolve({ items: [] }),
    className,
  );

  async function submit(event: Event) {
    event.preventDefault();
    const fields = new FormData(event.currentTarget as HTMLFormElement);
    const value = (name: string) => String(fields.get(name) ?? "");
    const body = (): Schemas["RolloutRequest"] => ({
      className,
      ...rolloutTargetOf({
        kind: target,
        group: value("group"),
        labels: value("labels"),
        continuous: fields.get("continuous") === "on",
      }),
      flowHash,
      plan: {
        canary: shareOf(value("canary"), value("canaryUnit")),
        batchSize: Number(value("batchSize")),
        batchIntervalSeconds: Number(value("batchIntervalSeconds")),
        soakSeconds: Number(value("soakSeconds")),
        failureThreshold: shareOf(value("failureThreshold"), value("failureThresholdUnit")),
        onFailure: value("onFailure") === "pause" ? "pause" : "rollback",
      },
      allowIncompatible: fields.get("allowIncompatible") === "on",
      startAt: startAtOf(value("startAt")),
    });
    const rollout = await run(() => dataOf(client.POST("/api/v1/rollouts", { body: body() })));
    if (rollout) route(`/rollouts/${encodeURIComponent(rollout.rolloutId)}`);
  }

  return (
    <details class="panel" open={props.flowHash !== undefined}>
      <summary>Start a rollout</summary>
      <form class="stacked" onSubmit={submit}>
        <ClassField name="className" value={className} required onChange={setClassName} />
        <label>
          Flow version
          <select
            name="flowHash"
            required
            value={flowHash}
            onChange={(event) => setFlowHash(event.currentTarget.value)}
          >
            {versions.status === "ready" && versions.data.items.length === 0 && (
              <option value="">the class has no flow version: publish one on its page</option>
            )}
            {versions.status === "ready" && versions.data.items.length > 0 && flowHash === "" && (
              <option value="">choose a version</option>
            )}
            {versions.status === "ready" &&
              versions.data.items.map((version) => (
                <option key={version.hash} value={version.hash}>
                  {shortHash(version.hash)} ({version.format}, {timeAgo(version.createdAt)} by{" "}
                  {version.createdBy})
                </option>
              ))}
          </select>
        </label>
        <RolloutTarget target={target} onChange={setTarget} />
        <fieldset class="plan">
          <legend>Plan</legend>
          <div class="filters">
            <label>
              Canary
              <input name="canary" type="number" min="0.01" step="0.01" required defaultValue="5" />
            </label>
            <label>
              Canary unit
              <select name="canaryUnit">
                <option value="percent">% of the class</option>
                <option value="count">agents</option>
              </select>
            </label>
            <label>
              Batch size (agents)
              <input name="batchSize" type="number" min="1" max="1000" required defaultValue="100" />
            </label>
            <label>
              Between batches (s)
              <input
                name="batchIntervalSeconds"
                type="number"
                min="0"
                max="86400"
                required
                defaultValue="10"
              />
            </label>
            <label>
              Soak (s)
              <input name="soakSeconds" type="number" min="0" max="86400" required defaultValue="120" />
            </label>
            <label>
              Failure threshold
              <input name="failureThreshold" type="number" min="0.01" step="0.01" required defaultValue="5" />
            </label>
            <label>
              Threshold unit
              <select name="failureThresholdUnit">
                <option value="percent">% of the updated agents</option>
                <option value="count">agents</option>
              </select>
            </label>
            <label>
              On failure
              <select name="onFailure">
                <option value="rollback">roll back</option>
                <option value="pause">pause</option>
              </select>
            </label>
          </div>
          <label>
            Start at (optional, {BROWSER_ZONE} time)
            <input name="startAt" type="datetime-local" />
          </label>
          <p class="hint">
            Empty, it starts at once; otherwise Beacon starts it then, at most 90 days ahead. A class that
            requires approval holds it until another operator approves it too.
          </p>
          <label class="inline">
            <input type="checkbox" name="allowIncompatible" />
            {/* In the words of the API's refusal, which names this field: allowIncompatible. */}
            Roll it out anyway: start even if some agents' manifests lack types the flow uses
          </label>
        </fieldset>
        <SubmitRow state={state} label="Start rollout" busyLabel="Starting…" />
      </form>
    </details>
  );
}

const TARGET_CHOICES = [
  ["class", "the whole class"],
  ["group", "the class's members of a group"],
  ["selector", "the class's agents with some labels"],
] as const satisfies readonly (readonly [RolloutTargetKind, string])[];

/**
 * Which of the class's agents the rollout takes, and whether it keeps taking those that join. A group is
 * offered to a session that may list groups: a session limited to classes cannot.
 */
function RolloutTarget(props: { target: RolloutTargetKind; onChange: (target: RolloutTargetKind) => void }) {
  const { client, session } = useConsole();
  const groupsListed = mayCall(session, "GET /api/v1/groups");
  const [groups] = useResource(
    () => (groupsListed ? groupNamesOf(client) : Promise.resolve([])),
    String(groupsListed),
  );
  const choices = TARGET_CHOICES.filter(([kind]) => kind !== "group" || groupsListed);
  return (
    <fieldset>
      <legend>Target</legend>
      {choices.map(([kind, label]) => (
        <label key={kind} class="inline">
          <input
            type="radio"
            name="target"
            value={kind}
            checked={props.target === kind}
            onChange={() => props.onChange(kind)}
          />
          {label}
        </label>
      ))}
      {props.target === "group" && (
        <label>
          Group
          <select name="group" required>
            {groups.status === "ready" && groups.data.length === 0 && (
              <option value="">no group yet: create one under Groups</option>
            )}
            {groups.status === "ready" &&
              groups.data.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
          </select>
        </label>
      )}
      {props.target === "selector" && (
        <label>
          Labels (key=value or key, commas between)
          <input name="labels" required placeholder="site=plant-7,gpu" />
        </label>
      )}
      <label class="inline">
        <input type="checkbox" name="continuous" disabled={props.target === "class"} />
        Continuous: keep reaching agents that join, until it is finished
      </label>
      <p class="hint">
        A group's or a selector's agents are read again at each batch; the class's target stays as it is, and
        each agent updated is held on the new version. A continuous rollout holds its class until you finish
        it on its page.
      </p>
    </fieldset>
  );
}

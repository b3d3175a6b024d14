import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { dataOf, type Schemas } from "../api/client";
import { ApprovalActions } from "../components/approval";
import { useConsole } from "../components/console";
import { Fact } from "../components/fact";
import { FlowVersionRef } from "../components/flow-version";
import { Page } from "../components/page";
import {
  ActionProblem,
  Loaded,
  Pager,
  TableFrame,
  TableHead,
  useAction,
  useInterval,
  useResource,
} from "../components/resource";
import { RolloutProgressBars } from "../components/rollout-progress";
import { dateTime, shortHash, timeAgo } from "../format";
import { FINAL_STATES } from "../rollout-progress";
import { mayAct } from "../session";

/** A rollout that has not started: approved or refused, not paused or aborted. */
const WAITING_STATES: Schemas["RolloutState"][] = ["awaiting_approval", "scheduled"];
/**
 * A rollout a person can pause, resume, finish or abort. Not one rolling back: an abort or a failure already
 * returns its agents, and the API refuses every action until it has.
 */
const ACTIONABLE_STATES: Schemas["RolloutState"][] = ["canary", "rolling", "following", "paused"];
/** How often a rollout under way is read again: about as often as the agents heartbeat. */
const FOLLOW_PERIOD_MS = 2000;
/** The rollout's agents a page shows; Next page follows the API's cursor, kept in the URL. */
const AGENTS_PAGE_SIZE = 100;

/** One rollout, followed live until it ends: its batches, each agent's health and why one failed. */
export function RolloutDetail() {
  const { client, session } = useConsole();
  const { params, query } = useRoute();
  const rolloutId = params.rolloutId ?? "";
  const cursor = query.cursor || undefined;
  const path = { rolloutId };
  const [rollout, reloadRollout] = useResource(
    () => dataOf(client.GET("/api/v1/rollouts/{rolloutId}", { params: { path } })),
    rolloutId,
  );
  const [agents, reloadAgents] = useResource(
    () =>
      dataOf(
        client.GET("/api/v1/rollouts/{rolloutId}/agents", {
          params: { path, query: { cursor, limit: AGENTS_PAGE_SIZE } },
        }),
      ),
    `${rolloutId} ${cursor}`,
  );
  // The class's heartbeat interval paces its agents' part of each batch.
  const className = rollout.status === "ready" ? rollout.data.className : "";
  const [agentClass] = useResource(
    () =>
      className === ""
        ? Promise.resolve(undefined)
        : dataOf(client.GET("/api/v1/classes/{className}", { params: { path: { className } } })),
    className,
  );
  const agentsUrl = (next?: string) =>
    `/rollouts/${encodeURIComponent(rolloutId)}${next ? `?${new URLSearchParams({ cursor: next })}` : ""}`;
  const live = rollout.status === "ready" && !FINAL_STATES.includes(rollout.data.state);
  const refresh = () => {
    reloadRollout();
    reloadAgents();
  };
  useInterval(refresh, FOLLOW_PERIOD_MS, live);
  return (
    <Page title={`Rollout ${rolloutId}`}>
      <p>
        <a href="/rollouts">All rollouts</a>
        {live && <span class="muted"> · following it live</span>}
      </p>
      <Loaded resource={rollout} what="the rollout" reload={reloadRollout}>
        {(data) => (
          <>
            {mayAct(session, "operator") &&
              (WAITING_STATES.includes(data.state) ? (
                <section aria-label="Rollout actions">
                  <ApprovalActions rollout={data} onChanged={refresh} />
                </section>
              ) : (
                ACTIONABLE_STATES.includes(data.state) && (
                  <RolloutActions rollout={data} onChanged={refresh} />
                )
              ))}
            <RolloutView rollout={data} />
            {agents.status === "ready" && agentClass.status === "ready" && agentClass.data && (
              <RolloutProgressBars
                rollout={data}
                members={agents.data.items}
                heartbeatSeconds={agentClass.data.heartbeatIntervalSeconds}
                partial={cursor !== undefined || agents.data.nextCursor !== undefined}
              />
            )}
          </>
        )}
      </Loaded>
      <h2>Agents</h2>
      <Loaded resource={agents} what="the rollout's agents" reload={reloadAgents}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="empty">
              {rollout.status === "ready" && WAITING_STATES.includes(rollout.data.state)
                ? "No agent selected: the rollout has not started."
                : "No agent selected yet: the canary starts with the sweeper's next run."}
            </p>
          ) : (
            <>
              <TableFrame label="The rollout's agents">
                <table>
                  <TableHead columns={["Agent", "Batch", "State", "Why", "Selected"]} />
                  <tbody>
                    {page.items.map((agent) => (
                      <tr key={agent.agentId}>
                        <td>
                          <a href={`/agents/${encodeURIComponent(agent.agentId)}`}>{agent.agentId}</a>
                        </td>
                        <td>{agent.batch === 0 ? "canary" : agent.batch}</td>
                        <td>
                          <span class={`state state-${agent.state}`}>{agent.state}</span>
                          {agent.runsNewVersion && (
                            <span class="muted">
                              {" "}
                              (reports the new version: soaking from the sweeper's next run)
                            </span>
                          )}
                        </td>
                        <td class="wrap">{agent.reason ?? "—"}</td>
                        <td>{timeAgo(agent.selectedAt)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableFrame>
              <Pager
                label="Pages of the rollout's agents"
                cursor={cursor}
                nextCursor={page.nextCursor}
                urlOf={agentsUrl}
              />
            </>
          )
        }
      </Loaded>
    </Page>
  );
}

function RolloutView({ rollout }: { rollout: Schemas["Rollout"] }) {
  const { counts, plan } = rollout;
  const share = (value: Schemas["RolloutPlan"]["canary"]) =>
    "percent" in value ? `${value.percent} %` : `${value.count} agent${value.count === 1 ? "" : "s"}`;
  return (
    <>
      <p
        class={`verdict ${rollout.state === "completed" ? "good" : FINAL_STATES.includes(rollout.state) ? "bad" : ""}`}
      >
        <span class={`state state-${rollout.state}`}>{rollout.state}</span>
        {rollout.reason && `: ${rollout.reason}`}
        {rollout.waitingForWindow &&
          `: waits for its class's maintenance window, which opens ${dateTime(rollout.waitingForWindow)}`}
      </p>
      <dl class="tiles">
        {(
          [
            ["Selected", counts.selected],
            ["Updating", counts.updating],
            ["Soaking", counts.soaking],
            ["Healthy", counts.healthy],
            ["Failed", counts.failed],
            ["Skipped", counts.skipped],
            ["Rolled back", counts.rolledBack],
          ] as const
        ).map(([term, count]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{count}</dd>
          </div>
        ))}
      </dl>
      <dl class="facts">
        <div>
          <dt>Class</dt>
          <dd>
            <a href={`/classes/${encodeURIComponent(rollout.className)}`}>{rollout.className}</a> (
            {rollout.classSize} agents at the start)
          </dd>
        </div>
        {(rollout.group !== undefined || rollout.selector !== undefined) && (
          <div>
            <dt>Target</dt>
            <dd>
              {rollout.group !== undefined ? (
                <>
                  the class's members of group{" "}
                  <a href={`/groups/${encodeURIComponent(rollout.group)}`}>{rollout.group}</a>
                </>
              ) : (
                <>
                  the class's agents the selector picks: <code>{JSON.stringify(rollout.selector)}</code>
                </>
              )}
              {rollout.continuous
                ? "; continuous: it keeps reaching agents that join until it is finished"
                : ""}
              . The class's target stays as it is.
            </dd>
          </div>
        )}
        <div>
          <dt>To version</dt>
          <dd>
            <FlowVersionRef hash={rollout.toFlow} name={rollout.toVersion} />
          </dd>
        </div>
        <div>
          <dt>From version</dt>
          <dd>
            {rollout.fromFlow ? (
              <FlowVersionRef hash={rollout.fromFlow} name={rollout.fromVersion} />
            ) : (
              "none: a failure pauses, as there is nothing to roll back to"
            )}
          </dd>
        </div>
        <div>
          <dt>Batches started</dt>
          <dd>
            {rollout.batches} (canary of {rollout.canarySize})
            {rollout.exhausted ? ", every agent considered" : ""}
          </dd>
        </div>
        <div>
          <dt>Plan</dt>
          <dd>
            canary {share(plan.canary)}, batches of {plan.batchSize} every {plan.batchIntervalSeconds} s, soak{" "}
            {plan.soakSeconds} s; at {share(plan.failureThreshold)} failed, {plan.onFailure}
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            {dateTime(rollout.createdAt)} by {rollout.createdBy}
            {rollout.finishedAt && `; ended ${dateTime(rollout.finishedAt)}`}
          </dd>
        </div>
        {rollout.startAt && (
          <Fact term="Start time">
            {dateTime(rollout.startAt)}
            {rollout.state === "awaiting_approval" && ", once approved"}
          </Fact>
        )}
        {rollout.state === "awaiting_approval" && (
          <Fact term="Approval">waiting for an operator other than {rollout.createdBy}</Fact>
        )}
        {rollout.approvedBy && (
          <Fact term="Approved">
            by {rollout.approvedBy}, {dateTime(rollout.approvedAt)}
          </Fact>
        )}
        {rollout.refusedBy && <Fact term="Refused">by {rollout.refusedBy}</Fact>}
        <div>
          <dt>Version</dt>
          <dd>
            <a
              href={`/classes/${encodeURIComponent(rollout.className)}?${new URLSearchParams({ flow: rollout.toFlow })}`}
            >
              validation of {shortHash(rollout.toFlow)}
            </a>
          </dd>
        </div>
      </dl>
    </>
  );
}

function RolloutActions(props: { rollout: Schemas["Rollout"]; onChanged: () => void }) {
  const { client } = useConsole();
  const [state, run] = useAction();
  const [confirmingAbort, setConfirmingAbort] = useState(false);
  const path = { rolloutId: props.rollout.rolloutId };
  const running = ["canary", "rolling", "following"].includes(props.rollout.state);
  const finishable =
    props.rollout.state === "following" ||
    (props.rollout.state === "paused" && props.rollout.resumeTo === "following");

  async function act(action: "pause" | "resume" | "finish" | "abort") {
    const changed = await run(() =>
      dataOf(client.POST(`/api/v1/rollouts/{rolloutId}/${action}`, { params: { path } })),
    );
    if (changed) {
      setConfirmingAbort(false);
      props.onChanged();
    }
  }

  return (
    <section aria-label="Rollout actions" class="actions">
      <div class="button-row">
        {running && (
          <button type="button" onClick={() => act("pause")} disabled={state.status === "busy"}>
            Pause
          </button>
        )}
        {props.rollout.state === "paused" && (
          <button type="button" onClick={() => act("resume")} disabled={state.status === "busy"}>
            Resume
          </button>
        )}
        {finishable && (
          <button type="button" onClick={() => act("finish")} disabled={state.status === "busy"}>
            Finish
          </button>
        )}
        {confirmingAbort ? (
          <>
            <button
              type="button"
              class="danger"
              onClick={() => act("abort")}
              disabled={state.status === "busy"}
            >
              Abort and return its agents to the previous version
            </button>
            <button type="button" onClick={() => setConfirmingAbort(false)}>
              Keep it going
            </button>
          </>
        ) : (
          <button type="button" class="danger" onClick={() => setConfirmingAbort(true)}>
            Abort…
          </button>
        )}
      </div>
      {finishable && (
        <p class="hint">
          Finishing completes it: no agent that joins is reached any more; those it updated keep the version.
        </p>
      )}
      {props.rollout.state === "paused" && (
        <p class="hint">Resuming accepts the failures so far and carries on where it stopped.</p>
      )}
      <ActionProblem state={state} />
    </section>
  );
}

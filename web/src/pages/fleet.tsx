import { dataOf, type Schemas } from "../api/client";
import { NeedsAttention } from "../components/attention";
import { BarChart } from "../components/bar-chart";
import { useConsole } from "../components/console";
import { OperationsTable } from "../components/operations-table";
import { Page } from "../components/page";
import { Loaded, TableFrame, TableHead, useInterval, useResource } from "../components/resource";
import { FleetHistory } from "./fleet-history";

export function Fleet() {
  const { client } = useConsole();
  const [summary, reloadSummary] = useResource(() => dataOf(client.GET("/api/v1/fleet/summary")), "summary");
  const [operations, reloadOperations] = useResource(
    () => dataOf(client.GET("/api/v1/operations", { params: { query: { limit: 10 } } })),
    "operations",
  );
  const refresh = () => {
    reloadSummary();
    reloadOperations();
  };
  useInterval(refresh, FOLLOW_PERIOD_MS, true);
  return (
    <Page
      title="Fleet"
      actions={
        <button type="button" onClick={refresh}>
          Refresh
        </button>
      }
    >
      <Loaded resource={summary} what="the fleet summary" reload={reloadSummary}>
        {(data) => <FleetSummary summary={data} />}
      </Loaded>
      <NeedsAttention />
      <FleetHistory
        classes={summary.status === "ready" ? summary.data.classes.map(({ name }) => name) : []}
      />
      <h2>Recent operations</h2>
      <Loaded resource={operations} what="operations" reload={reloadOperations}>
        {(data) =>
          data.items.length === 0 ? (
            <p class="empty">
              No operations yet. Open an <a href="/agents">agent</a> to ask it for its manifest, or queue
              operations with <code>POST /api/v1/operations</code>.
            </p>
          ) : (
            <>
              <OperationsTable operations={data.items} label="Recent operations" />
              <p>
                <a href="/operations">All operations</a>
              </p>
            </>
          )
        }
      </Loaded>
    </Page>
  );
}

function FleetSummary({ summary }: { summary: Schemas["FleetSummary"] }) {
  const { agents, classes } = summary;
  if (agents.total === 0) {
    return (
      <p class="empty">
        No agent has reported yet. Point a MiNiFi agent at the agent API with a certificate of this tenant, or
        run <code>npm run agents -- --class demo --count 3</code> beside <code>npm start</code>: agents appear
        here at their first heartbeat.
      </p>
    );
  }
  return (
    <>
      <dl class="tiles">
        <div>
          <dt>Agents</dt>
          <dd>{agents.total}</dd>
        </div>
        <div>
          <dt>Online</dt>
          <dd class="online">{agents.online}</dd>
        </div>
        <div>
          <dt>Offline</dt>
          <dd class="offline">{agents.offline}</dd>
        </div>
      </dl>
      {summary.countsFrom === "registry" && (
        <p class="notice">The cache is unreachable: counts come from the registry's checkpoints.</p>
      )}
      <h2>Heartbeats per minute</h2>
      <HeartbeatChart minutes={summary.heartbeatsPerMinute} />
      <h2>Classes</h2>
      <TableFrame label="Agents per class">
        <table>
          <TableHead columns={["Class", "Agents", "Online", "Offline"]} />
          <tbody>
            {classes.map((agentClass) => (
              <tr key={agentClass.name}>
                <td>
                  <a href={`/agents?class=${encodeURIComponent(agentClass.name)}`}>{agentClass.name}</a>
                </td>
                <td>{agentClass.agents.total}</td>
                <td>
                  <a href={`/agents?class=${encodeURIComponent(agentClass.name)}&status=online`}>
                    {agentClass.agents.online}
                  </a>
                </td>
                <td>
                  <a href={`/agents?class=${encodeURIComponent(agentClass.name)}&status=offline`}>
                    {agentClass.agents.offline}
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
      {summary.classesTruncated && <p class="notice">Only the first 1,000 classes are summed.</p>}
    </>
  );
}

/** The summary's counts move with every heartbeat; the page keeps up about every quarter minute. */
const FOLLOW_PERIOD_MS = 15_000;

function HeartbeatChart({ minutes }: { minutes: Schemas["FleetSummary"]["heartbeatsPerMinute"] }) {
  if (minutes === null) {
    return <p class="notice">Heartbeats are counted in the cache, which is unreachable.</p>;
  }
  const peak = Math.max(1, ...minutes.map((minute) => minute.count));
  const latest = minutes.at(-1)?.count ?? 0;
  const bars = minutes.map((minute) => ({
    key: minute.minute,
    value: minute.count,
    title: `${new Date(minute.minute).toLocaleTimeString()}: ${minute.count}`,
  }));
  return (
    <BarChart
      bars={bars}
      label={`Heartbeats per minute over the last ${minutes.length} minutes: ${latest} in the current minute, ${peak} at most`}
    >
      <div class="axis" aria-hidden="true">
        <span>
          {minutes[0] ? new Date(minutes[0].minute).toLocaleTimeString([], { timeStyle: "short" }) : ""}
        </span>
        <span>now</span>
      </div>
      <figcaption>
        {latest} in the current minute; at most {peak} a minute over the last {minutes.length} minutes.
      </figcaption>
    </BarChart>
  );
}

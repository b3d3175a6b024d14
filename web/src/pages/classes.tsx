import { useLocation } from "preact-iso";
import { dataOf } from "../api/client";
import { Clipped } from "../components/clipped";
import { useConsole } from "../components/console";
import { FlowVersionRef } from "../components/flow-version";
import { Page } from "../components/page";
import { Loaded, Pager, TableFrame, TableHead, useResource } from "../components/resource";

const PAGE_SIZE = 50;

export function Classes() {
  const { client } = useConsole();
  const { query } = useLocation();
  const cursor = query.cursor || undefined;
  const [classes, reload] = useResource(
    () => dataOf(client.GET("/api/v1/classes", { params: { query: { cursor, limit: PAGE_SIZE } } })),
    cursor ?? "",
  );
  return (
    <Page title="Classes">
      <Loaded resource={classes} what="classes" reload={reload}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="empty">
              No class yet. A class appears when its first agent heartbeats (the agent's
              <code> nifi.c2.agent.class</code>); agents that name none join <code>default</code>.
            </p>
          ) : (
            <>
              <TableFrame label="Classes">
                <table>
                  <TableHead columns={["Class", "Agents", "Online", "Heartbeat", "Target flow", "Rollout"]} />
                  <tbody>
                    {page.items.map((agentClass) => (
                      <tr key={agentClass.name}>
                        <td>
                          <a href={`/classes/${encodeURIComponent(agentClass.name)}`}>{agentClass.name}</a>
                          {agentClass.description && <div class="muted">{agentClass.description}</div>}
                        </td>
                        <td>{agentClass.agents.total}</td>
                        <td>{agentClass.agents.online}</td>
                        <td>every {agentClass.heartbeatIntervalSeconds} s</td>
                        <td>
                          <FlowVersionRef
                            hash={agentClass.flow?.target}
                            name={agentClass.flow?.targetVersion}
                            copy={false}
                          />
                        </td>
                        <td>
                          {agentClass.activeRolloutId === undefined ? (
                            "—"
                          ) : (
                            <a href={`/rollouts/${encodeURIComponent(agentClass.activeRolloutId)}`}>
                              <Clipped text={agentClass.activeRolloutId} mono />
                            </a>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableFrame>
              <Pager
                label="Pages of classes"
                cursor={cursor}
                nextCursor={page.nextCursor}
                urlOf={(next) => (next ? `/classes?${new URLSearchParams({ cursor: next })}` : "/classes")}
              />
            </>
          )
        }
      </Loaded>
    </Page>
  );
}

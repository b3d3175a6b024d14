import { agentTypeName } from "../../../functions/core/manifests/binary-name.js";
import { dataOf } from "../api/client";
import { type BinaryRow, binaryAgentsHref, binaryRows } from "../binaries";
import { useConsole } from "../components/console";
import { CopyButton } from "../components/flow-version";
import { Page } from "../components/page";
import { Loaded, TableFrame, TableHead, useResource } from "../components/resource";
import { dateTime, shortHash, timeAgo } from "../format";

/**
 * Which binaries the fleet runs and where: each binary (agent type and version, the start of its canonical
 * id), how many agents run it, per class, as the sweeper's last counting pass found them.
 */
export function Binaries() {
  const { client } = useConsole();
  const [binaries, reload] = useResource(() => dataOf(client.GET("/api/v1/fleet/binaries")), "binaries");
  return (
    <Page
      title="Binaries"
      actions={
        <button type="button" onClick={reload}>
          Refresh
        </button>
      }
    >
      <Loaded resource={binaries} what="the binaries" reload={reload}>
        {(data) => {
          if (data.countedAt === undefined)
            return (
              <p class="empty">
                Not counted yet: the sweeper counts the agents by binary every few minutes. Come back shortly.
              </p>
            );
          const counted = new Date(data.countedAt).toISOString();
          const rows = binaryRows(data.items);
          return (
            <>
              <p class="hint">
                Counted <span title={dateTime(counted)}>{timeAgo(counted)}</span> by the sweeper, which counts
                every few minutes: agents registered or changed since show at its next count.
              </p>
              {rows.length === 0 ? (
                <p class="empty">No agents yet.</p>
              ) : (
                <>
                  <AgentsByBinary rows={rows} />
                  <BinaryTable rows={rows} />
                </>
              )}
            </>
          );
        }}
      </Loaded>
    </Page>
  );
}

/** One horizontal bar a binary, its length the agents running it; the figures are written beside each. */
function AgentsByBinary({ rows }: { rows: BinaryRow[] }) {
  const most = Math.max(1, ...rows.map((row) => row.agents));
  return (
    <section aria-labelledby="agents-by-binary">
      <h2 id="agents-by-binary">Agents by binary version</h2>
      <ol class="binary-bars">
        {rows.map((row) => (
          <li key={row.manifestId ?? ""}>
            <span class="binary-bar-name">{row.name}</span>{" "}
            <svg class="binary-bar" aria-hidden="true" viewBox={`0 0 ${most} 1`} preserveAspectRatio="none">
              <rect x={0} y={0} width={row.agents} height={1} />
            </svg>
            <span class="binary-bar-count">
              {row.agents} {row.agents === 1 ? "agent" : "agents"}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}

function BinaryTable({ rows }: { rows: BinaryRow[] }) {
  return (
    <TableFrame label="Binaries">
      <table>
        <TableHead columns={["Binary", "Agent type", "Version", "Agents", "By class"]} />
        <tbody>
          {rows.map((row) => (
            <tr key={row.manifestId ?? ""}>
              <td>
                {row.manifestId === undefined ? (
                  row.name
                ) : (
                  <>
                    <span title={row.manifestId}>{row.name}</span>{" "}
                    <CopyButton text={row.manifestId} what={`binary id ${shortHash(row.manifestId)}`} />
                  </>
                )}
              </td>
              <td>{row.manifestId === undefined ? "—" : agentTypeName(row.agentType)}</td>
              <td>{row.version ?? "—"}</td>
              <td>
                {row.manifestId === undefined ? (
                  row.agents
                ) : (
                  <a href={binaryAgentsHref(row.manifestId)}>{row.agents}</a>
                )}
              </td>
              <td>
                <ul class="binary-classes">
                  {row.classes.map(({ className, agents }) => (
                    <li key={className}>
                      {row.manifestId === undefined ? (
                        `${className}: ${agents}`
                      ) : (
                        <a href={binaryAgentsHref(row.manifestId, className)}>
                          {className}: {agents}
                        </a>
                      )}
                    </li>
                  ))}
                </ul>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

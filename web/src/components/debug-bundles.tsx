import { useState } from "preact/hooks";
import { type ConsoleClient, dataOf, type Schemas } from "../api/client";
import { byteSize, dateTime } from "../format";
import { mayCall } from "../session";
import { useConsole } from "./console";
import {
  ActionProblem,
  Loaded,
  TableFrame,
  TableHead,
  useAction,
  useInterval,
  useResource,
} from "./resource";

/** A bundle comes a heartbeat or two after it is asked for; the agent's list follows it at about that pace. */
const FOLLOW_PERIOD_MS = 3000;
const OPEN_STATES: Schemas["OperationState"][] = ["queued", "delivered", "awaiting_effect"];
const isTransferDebug = (operation: Schemas["Operation"]) =>
  operation.operation === "TRANSFER" && operation.operand === "DEBUG";

/**
 * Saves the bundle: the API hands out a short-lived link to the bucket, which the browser navigates to, and
 * the bucket's answer names the file; the page itself never fetches from another origin.
 */
async function download(client: ConsoleClient, operationId: string): Promise<void> {
  const { location } = await dataOf(
    client.GET("/api/v1/debug-bundles/{operationId}/content", {
      params: { path: { operationId }, query: { redirect: false } },
    }),
  );
  window.location.assign(location);
}

/** Debug bundles, newest first, each with a download for those who may. */
export function DebugBundleTable(props: { bundles: Schemas["DebugBundle"][]; label: string }) {
  const { client, session } = useConsole();
  const [state, run] = useAction();
  const mayDownload = mayCall(session, "GET /api/v1/debug-bundles/{operationId}/content");
  return (
    <>
      <TableFrame label={props.label}>
        <table>
          <TableHead
            columns={[
              "Agent",
              "Operation",
              "Size",
              "Stored",
              "Kept until",
              ...(mayDownload ? [{ hidden: "Download" }] : []),
            ]}
          />
          <tbody>
            {props.bundles.map((bundle) => (
              <tr key={bundle.operationId}>
                <td>
                  <a href={`/agents/${encodeURIComponent(bundle.agentId)}`}>{bundle.agentId}</a>
                </td>
                <td class="mono wrap">{bundle.operationId}</td>
                <td>{byteSize(bundle.bytes)}</td>
                <td>{dateTime(bundle.storedAt)}</td>
                <td>{dateTime(bundle.expiresAt)}</td>
                {mayDownload && (
                  <td>
                    <button
                      type="button"
                      onClick={() => run(() => download(client, bundle.operationId))}
                      disabled={state.status === "busy"}
                    >
                      Download
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
      <ActionProblem state={state} />
    </>
  );
}

/** The tenant's debug bundles not yet expired, newest first. */
export function DebugBundles() {
  const { client } = useConsole();
  const [bundles, reload] = useResource(
    () => dataOf(client.GET("/api/v1/debug-bundles", { params: { query: { limit: 100 } } })),
    "debug bundles",
  );
  return (
    <section aria-labelledby="debug-bundles">
      <h2 id="debug-bundles">Debug bundles</h2>
      <p>
        What agents uploaded for a TRANSFER DEBUG: their flow, configuration and logs, as a gzip tar, kept for
        a day. Ask an agent for one on its page, or above.
      </p>
      <Loaded resource={bundles} what="debug bundles" reload={reload}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="empty">No debug bundle kept.</p>
          ) : (
            <DebugBundleTable bundles={page.items} label="The tenant's debug bundles" />
          )
        }
      </Loaded>
    </section>
  );
}

/**
 * One agent's debug bundles (the API reads them by agent), how many it was asked for and has yet to send (its
 * latest operations), and, for an operator, the request for another.
 */
export function AgentDebugBundles(props: { agentId: string }) {
  const { client, session } = useConsole();
  const { agentId } = props;
  const [asking, ask] = useAction();
  const [notice, setNotice] = useState<string>();
  const [found, reload] = useResource(async () => {
    const [bundles, operations] = await Promise.all([
      dataOf(client.GET("/api/v1/debug-bundles", { params: { query: { agentId, limit: 100 } } })),
      dataOf(client.GET("/api/v1/operations", { params: { query: { agentId, limit: 100 } } })),
    ]);
    return {
      bundles: bundles.items,
      waiting: operations.items.filter(
        (operation) => isTransferDebug(operation) && OPEN_STATES.includes(operation.state),
      ).length,
    };
  }, `debug bundles ${agentId}`);
  useInterval(reload, FOLLOW_PERIOD_MS, found.status === "ready" && found.data.waiting > 0);

  async function request() {
    const created = await ask(() =>
      dataOf(
        client.POST("/api/v1/operations", { body: { agentId, operation: "TRANSFER", operand: "DEBUG" } }),
      ),
    );
    if (created) {
      setNotice("Asked: the agent uploads its bundle after its next heartbeat.");
      reload();
    }
  }

  return (
    <section aria-labelledby="agent-debug-bundles">
      <h2 id="agent-debug-bundles">Debug bundles</h2>
      {mayCall(session, "POST /api/v1/operations") && (
        <div class="button-row">
          <button type="button" onClick={request} disabled={asking.status === "busy"}>
            Request a debug bundle
          </button>
        </div>
      )}
      {notice && <p role="status">{notice}</p>}
      <ActionProblem state={asking} />
      <Loaded resource={found} what="the agent's debug bundles" reload={reload}>
        {({ bundles, waiting }) => (
          <>
            {waiting > 0 && (
              <p class="muted" role="status">
                Waiting for {waiting === 1 ? "a bundle" : `${waiting} bundles`} from the agent.
              </p>
            )}
            {bundles.length === 0 ? (
              <p class="empty">No debug bundle kept for this agent: a bundle is kept for a day.</p>
            ) : (
              <DebugBundleTable bundles={bundles} label="The agent's debug bundles" />
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}

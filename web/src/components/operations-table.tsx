import { rolloutOfCreator } from "../../../functions/core/rollouts/creator.js";
import { dataOf, type Schemas } from "../api/client";
import { timeAgo } from "../format";
import { mayAct } from "../session";
import { Clipped } from "./clipped";
import { useConsole } from "./console";
import { ActionProblem, TableFrame, TableHead, useAction } from "./resource";

/** Operations, newest first; given `onCancelled`, a queued one can be cancelled (the API asks for operator). */
export function OperationsTable(props: {
  operations: Schemas["Operation"][];
  label: string;
  onCancelled?: () => void;
}) {
  const { onCancelled } = props;
  // What a DESCRIBE answered holds configuration values: the API serves it to operators and admins only.
  const mayReadResults = mayAct(useConsole().session, "operator");
  return (
    <TableFrame label={props.label}>
      <table>
        <TableHead
          columns={[
            "Operation",
            "Agent",
            "State",
            "Created",
            "By",
            ...(onCancelled ? [{ hidden: "Actions" }] : []),
          ]}
        />
        <tbody>
          {props.operations.map((operation) => (
            <tr key={operation.operationId}>
              <td>
                {operation.operation} {operation.operand ?? ""}
              </td>
              <td>
                <a href={`/agents/${encodeURIComponent(operation.agentId)}`}>{operation.agentId}</a>
              </td>
              <td>
                <span class={`state state-${operation.state}`}>{operation.state}</span>
                {(operation.reason ?? operation.failureCause) && (
                  <span class="muted"> ({operation.reason ?? operation.failureCause})</span>
                )}
                {operation.result && mayReadResults && (
                  <ResultDownload operationId={operation.operationId} bytes={operation.result.bytes} />
                )}
              </td>
              <td>{timeAgo(operation.createdAt)}</td>
              <td>
                <CreatedBy createdBy={operation.createdBy} />
              </td>
              {onCancelled && (
                <td>
                  {operation.state === "queued" && (
                    <CancelButton operationId={operation.operationId} onCancelled={onCancelled} />
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

/** Who created an operation: a person, or a rollout, linked to its page. */
function CreatedBy(props: { createdBy: string }) {
  const rolloutId = rolloutOfCreator(props.createdBy);
  if (rolloutId === undefined) return <Clipped text={props.createdBy} />;
  return (
    <a href={`/rollouts/${encodeURIComponent(rolloutId)}`} title={props.createdBy}>
      rollout <Clipped text={rolloutId} mono />
    </a>
  );
}

function CancelButton(props: { operationId: string; onCancelled: () => void }) {
  const { client } = useConsole();
  const [state, run] = useAction();
  const path = { operationId: props.operationId };
  async function cancel() {
    const cancelled = await run(() =>
      dataOf(client.POST("/api/v1/operations/{operationId}/cancel", { params: { path } })),
    );
    if (cancelled) props.onCancelled();
  }
  return (
    <>
      <button type="button" class="danger" onClick={cancel} disabled={state.status === "busy"}>
        Cancel
      </button>
      <ActionProblem state={state} />
    </>
  );
}

/** Fetches what the operation's acknowledgement answered, with the session's token, and saves it as a file. */
function ResultDownload(props: { operationId: string; bytes: number }) {
  const { client } = useConsole();
  const [state, run] = useAction();
  const path = { operationId: props.operationId };
  async function download() {
    const blob = await run(() =>
      dataOf(client.GET("/api/v1/operations/{operationId}/result", { params: { path }, parseAs: "blob" })),
    );
    if (!blob) return;
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = url;
    link.download = `${props.operationId}.json`;
    link.click();
    URL.revokeObjectURL(url);
  }
  return (
    <>
      {" "}
      <button type="button" onClick={download} disabled={state.status === "busy"}>
        Result ({Math.max(1, Math.round(props.bytes / 1024))} KB)
      </button>
      <ActionProblem state={state} />
    </>
  );
}

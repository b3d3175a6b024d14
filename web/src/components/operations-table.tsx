import type { Schemas } from "../api/client";
import { timeAgo } from "../format";
import { TableFrame, TableHead } from "./resource";

export function OperationsTable(props: { operations: Schemas["Operation"][]; label: string }) {
  return (
    <TableFrame label={props.label}>
      <table>
        <TableHead columns={["Operation", "Agent", "State", "Created", "By"]} />
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
                {operation.reason && <span class="muted"> ({operation.reason})</span>}
              </td>
              <td>{timeAgo(operation.createdAt)}</td>
              <td>{operation.createdBy}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

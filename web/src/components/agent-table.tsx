import { agentTypeName } from "../../../functions/core/manifests/binary-name.js";
import type { Schemas } from "../api/client";
import { timeAgo } from "../format";
import { AttentionReasons } from "./attention";
import { BinaryName } from "./binary-name";
import { FlowVersionRef } from "./flow-version";
import { LabelList } from "./labels";
import { TableFrame, TableHead } from "./resource";

/** What people call the agent's software (`MiNiFi Java 2.3.0`), once Beacon knows its manifest. */
function agentTypeAndVersion(agent: Schemas["AgentSummary"]): string {
  if (agent.binaryName === undefined) return "—";
  return `${agentTypeName(agent.agentType)} ${agent.agentVersion ?? "(version unknown)"}`;
}

/** Agents as the agent list shows them, one row each, linked to their pages. */
export function AgentTable(props: { label: string; agents: Schemas["AgentSummary"][] }) {
  return (
    <TableFrame label={props.label}>
      <table>
        <TableHead
          columns={[
            "Agent",
            "Class",
            "Status",
            "Last seen",
            "Flow",
            "Agent type and version",
            "Binary",
            "Host",
            "Labels",
            "Attention",
          ]}
        />
        <tbody>
          {props.agents.map((agent) => (
            <tr key={agent.agentId}>
              <td>
                <a href={`/agents/${encodeURIComponent(agent.agentId)}`}>{agent.agentId}</a>
              </td>
              <td>{agent.agentClass}</td>
              <td>
                <span class={`state state-${agent.status}`}>{agent.status}</span>
              </td>
              <td title={agent.lastSeen}>{timeAgo(agent.lastSeen)}</td>
              <td>
                <FlowVersionRef hash={agent.flowId} name={agent.flowVersion} copy={false} />
                {agent.pinnedFlow && (
                  <span class="state" title={`Pinned to ${agent.pinnedFlow.flowHash}`}>
                    {" "}
                    pinned
                  </span>
                )}
              </td>
              <td>{agentTypeAndVersion(agent)}</td>
              <td>
                <BinaryName
                  short
                  name={agent.binaryName}
                  manifestId={agent.manifestId}
                  manifestHash={agent.manifestHash}
                />
              </td>
              <td>{agent.hostname ?? "—"}</td>
              <td>
                <LabelList labels={agent.labels} />
              </td>
              <td>
                <AttentionReasons reasons={agent.attention} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

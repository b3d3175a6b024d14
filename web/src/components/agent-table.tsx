import { agentTypeName } from "../../../functions/core/manifests/binary-name.js";
import type { Schemas } from "../api/client";
import { timeAgo } from "../format";
import { AttentionReasons } from "./attention";
import { BinaryName } from "./binary-name";
import { FlowVersionRef } from "./flow-version";
import { LabelList } from "./labels";
import { TableFrame, TableHead } from "./resource";

/**
 * The agent's binary as people call it: its agent type and version (`MiNiFi Java 2.3.0`), then the start of its
 * id, the whole name and id on hover; the start of the manifest hash it reports while Beacon has yet to learn it.
 * One column, so that the list keeps every column in view at 1280 px.
 */
function AgentBinary({ agent }: { agent: Schemas["AgentSummary"] }) {
  const binary = (
    <BinaryName
      short
      name={agent.binaryName}
      manifestId={agent.manifestId}
      manifestHash={agent.manifestHash}
    />
  );
  if (agent.binaryName === undefined) return binary;
  return (
    <>
      {agentTypeName(agent.agentType)} {agent.agentVersion ?? "(version unknown)"} · {binary}
    </>
  );
}

/** Agents as the agent list shows them, one row each, linked to their pages. */
export function AgentTable(props: { label: string; agents: Schemas["AgentSummary"][] }) {
  return (
    <TableFrame label={props.label}>
      <table class="agents wrapped-heads">
        <TableHead
          columns={[
            "Agent",
            "Class",
            "Status",
            "Last seen",
            "Flow",
            "Agent type and version · binary",
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
              <td class="wrap">
                <FlowVersionRef hash={agent.flowId} name={agent.flowVersion} copy={false} />
                {agent.pinnedFlow && (
                  <span class="state" title={`Pinned to ${agent.pinnedFlow.flowHash}`}>
                    {" "}
                    pinned
                  </span>
                )}
              </td>
              <td class="wrap">
                <AgentBinary agent={agent} />
              </td>
              <td>{agent.hostname ?? "—"}</td>
              <td class="wrap">
                <LabelList labels={agent.labels} />
              </td>
              <td class="wrap">
                <AttentionReasons reasons={agent.attention} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

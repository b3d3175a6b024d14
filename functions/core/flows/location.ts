import { agentFlowContentUrl, agentRolloutFlowContentUrl, flowContentUrl } from "../c2/routes.js";

/**
 * Whom a flow version goes to and, when it declares parameters, the flow id of its rendering with the
 * agent's values (parameters/rendered-flow-ids.ts).
 */
export interface FlowRecipient {
  agentId: string;
  renderedFlowId?: string;
  /** A rollout of the class's staged values: the rendering takes the values it froze for the class's. */
  valuesRollout?: string;
}

/** Whether a version declares parameters: an agent then downloads it rendered with its own values. */
export const declaresParameters = (version: { parameters?: readonly unknown[] }): boolean =>
  (version.parameters?.length ?? 0) > 0;

/**
 * What an UPDATE CONFIGURATION carries: where to download the flow version, the id it goes by, and
 * `persist`, without which MiNiFi C++ runs the new flow without writing it to disk, so a restart brings
 * the old one back. MiNiFi Java reads only the keys it knows and ignores it, so every agent gets the same
 * args, whatever Beacon knows of its type. A version that declares parameters is downloaded from the
 * agent's own route, rendered with its values, and goes by the flow id of that rendering, which the agent
 * reports back: a value change is a new flow id, so Beacon sees which agents run the current values.
 */
export const updateConfigurationArgs = (
  agentApiUrl: string,
  hash: string,
  recipient: FlowRecipient,
): Record<string, string> => ({
  location:
    recipient.renderedFlowId === undefined
      ? flowContentUrl(agentApiUrl, hash)
      : recipient.valuesRollout === undefined
        ? agentFlowContentUrl(agentApiUrl, recipient.agentId, hash)
        : agentRolloutFlowContentUrl(agentApiUrl, recipient.agentId, recipient.valuesRollout, hash),
  flowId: recipient.renderedFlowId ?? hash,
  persist: "true",
});

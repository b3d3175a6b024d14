import { agentFlowContentUrl, flowContentUrl } from "../c2/routes.js";

/** Whom a flow version goes to, and whether it declares parameters, which then take the agent's own values. */
export interface FlowRecipient {
  agentId: string;
  parameterized: boolean;
}

/** Whether a version declares parameters: an agent then downloads it rendered with its own values. */
export const declaresParameters = (version: { parameters?: readonly unknown[] }): boolean =>
  (version.parameters?.length ?? 0) > 0;

/**
 * What an UPDATE CONFIGURATION carries: where to download the flow version, the id it goes by, and
 * `persist`, without which MiNiFi C++ runs the new flow without writing it to disk, so a restart brings
 * the old one back. MiNiFi Java reads only the keys it knows and ignores it, so every agent gets the same
 * args, whatever Beacon knows of its type. A version that declares parameters is downloaded from the
 * agent's own route, rendered with its values; its flow id stays the version's hash, which agents report
 * back and the class's policy is compared with.
 */
export const updateConfigurationArgs = (
  agentApiUrl: string,
  flowId: string,
  recipient: FlowRecipient,
): Record<string, string> => ({
  location: recipient.parameterized
    ? agentFlowContentUrl(agentApiUrl, recipient.agentId, flowId)
    : flowContentUrl(agentApiUrl, flowId),
  flowId,
  persist: "true",
});

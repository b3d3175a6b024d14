/** How people call the agent types manifests state; a type not listed is shown as stated. */
const AGENT_TYPE_NAMES: Readonly<Record<string, string>> = {
  "minifi-java": "MiNiFi Java",
  cpp: "MiNiFi C++",
  "minifi-cpp": "MiNiFi C++",
};

/** How many hex digits of a binary's canonical id tell it apart where a name is shown. */
export const SHORT_ID_LENGTH = 7;

/** An agent type as people call it (`MiNiFi Java`), from the type a manifest states. */
export const agentTypeName = (agentType: string | undefined): string =>
  agentType === undefined ? "Unknown agent" : (AGENT_TYPE_NAMES[agentType] ?? agentType);

/**
 * A binary's name as the console shows it: agent type and version, then the start of its canonical id, as
 * two builds of one version differ only there (`MiNiFi Java 2.3.0 · 3f9a12c`).
 */
export function binaryNameOf(binary: { manifestId: string; agentType?: string; version?: string }): string {
  return `${agentTypeName(binary.agentType)} ${binary.version ?? "(version unknown)"} · ${binary.manifestId.slice(0, SHORT_ID_LENGTH)}`;
}

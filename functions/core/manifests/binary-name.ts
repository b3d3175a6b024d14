import type { ManifestCatalog } from "./ports.js";

/** How people call the agent types manifests state; a type not listed is shown as stated. */
const AGENT_TYPE_NAMES: Readonly<Record<string, string>> = {
  "minifi-java": "MiNiFi Java",
  cpp: "MiNiFi C++",
  "minifi-cpp": "MiNiFi C++",
};

/** How many hex digits of a binary's canonical id tell it apart where a name is shown. */
export const SHORT_ID_LENGTH = 7;

/**
 * A binary's name as the console shows it: agent type and version, then the start of its canonical id, as
 * two builds of one version differ only there (`MiNiFi Java 2.3.0 · 3f9a12c`).
 */
export function binaryNameOf(binary: { manifestId: string; agentType?: string; version?: string }): string {
  const type =
    binary.agentType === undefined
      ? "Unknown agent"
      : (AGENT_TYPE_NAMES[binary.agentType] ?? binary.agentType);
  return `${type} ${binary.version ?? "(version unknown)"} · ${binary.manifestId.slice(0, SHORT_ID_LENGTH)}`;
}

/** The names of the binaries a page of rows shows, each distinct binary read once; unknown ones have none. */
export async function binaryNames(
  catalog: Pick<ManifestCatalog, "get">,
  tenant: string,
  manifestIds: readonly string[],
): Promise<Map<string, string>> {
  const records = await Promise.all([...new Set(manifestIds)].map((id) => catalog.get(tenant, id)));
  return new Map(
    records.flatMap((record) => (record ? [[record.manifestId, binaryNameOf(record)] as const] : [])),
  );
}

import { dropUndefined } from "../json.js";
import { binaryNameOf } from "./binary-name.js";
import type { ManifestCatalog } from "./ports.js";

/** A binary as the console names it, with the agent type and version its manifest states. */
export interface NamedBinary {
  name: string;
  agentType?: string;
  version?: string;
}

/**
 * The binaries a page of rows shows, by canonical id, each distinct binary read once; those Beacon does not
 * hold are named from their id alone.
 */
export async function namedBinaries(
  catalog: Pick<ManifestCatalog, "get">,
  tenant: string,
  manifestIds: readonly string[],
): Promise<Map<string, NamedBinary>> {
  const ids = [...new Set(manifestIds)];
  const records = await Promise.all(ids.map((id) => catalog.get(tenant, id)));
  return new Map(
    ids.map((manifestId, index) => {
      const record = records[index];
      return [
        manifestId,
        dropUndefined({
          name: binaryNameOf(record ?? { manifestId }),
          agentType: record?.agentType,
          version: record?.version,
        }),
      ];
    }),
  );
}

import { dropUndefined } from "../json.js";
import { isFlowHash } from "./flow-hash.js";
import type { FlowCatalog, FlowVersionRecord } from "./ports.js";

/** What names a flow version beside its hash: its number in the class and its label, those it has. */
export interface FlowVersionName {
  version?: number;
  label?: string;
}

/** The version's name; undefined for a version with neither (stored before numbering, unlabelled). */
export function flowVersionNameOf(record: Pick<FlowVersionRecord, "version" | "label">) {
  const name: FlowVersionName = dropUndefined({ version: record.version, label: record.label });
  return Object.keys(name).length === 0 ? undefined : name;
}

/** A flow a view shows: the class whose version it may be, and the flow id or hash. */
export interface FlowReference {
  className: string;
  flow: string;
}

const keyOf = ({ className, flow }: FlowReference) => `${className}\u0000${flow}`;

/**
 * The names of the flows a page of rows shows, each distinct version read once, so that a page costs a read
 * per version it shows rather than per row; a flow that is no version of its class (a flow id from another
 * C2 server, a rendering's id) has no name.
 */
export async function flowVersionNames(
  flows: Pick<FlowCatalog, "get">,
  tenant: string,
  references: readonly FlowReference[],
): Promise<(reference: FlowReference) => FlowVersionName | undefined> {
  const distinct = new Map(
    references.filter(({ flow }) => isFlowHash(flow)).map((reference) => [keyOf(reference), reference]),
  );
  const names = new Map(
    await Promise.all(
      [...distinct].map(async ([key, { className, flow }]) => {
        const record = await flows.get(tenant, className, flow);
        return [key, record && flowVersionNameOf(record)] as const;
      }),
    ),
  );
  return (reference) => names.get(keyOf(reference));
}

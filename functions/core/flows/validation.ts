import { dropUndefined } from "../json.js";
import { detailOf } from "../manifests/catalog.js";
import type { ManifestCatalog } from "../manifests/ports.js";
import { isComplete, type ManifestTypes, missingTypes } from "./compatibility.js";
import type { FlowVersionRecord } from "./ports.js";

/** Most agents one validation report covers; a larger class is reported on its first ones, and says so. */
const MAX_VALIDATED_AGENTS = 5_000;
/** Agent ids listed per binary in a validation report; the count covers them all. */
const MAX_AGENT_IDS_PER_MANIFEST = 100;

/** An agent of a class as the agent list shows it: with its binary, when Beacon knows its manifest. */
export interface ClassAgent {
  agentId: string;
  manifestId?: string;
}

export interface FlowValidationDependencies {
  manifests: Pick<ManifestCatalog, "read">;
  /** The class's agents as the agent list shows them, reading on until `limit` or the end. */
  classAgents(tenant: string, className: string, limit: number): Promise<ClassAgent[]>;
}

/**
 * A dry run: whether a class's agents could run one of its flow versions, binary by binary (agents of one
 * build share a manifest's content, whatever their own manifest hashes). Every processor and controller
 * service type the flow uses must be in the agent's manifest.
 */
export function makeFlowValidation(deps: FlowValidationDependencies) {
  const { manifests } = deps;

  /** What each binary offers, read once; undefined for one Beacon does not hold. */
  function manifestTypesReader(tenant: string) {
    const byId = new Map<string, Promise<ManifestTypes | undefined>>();
    return (manifestId: string) => {
      let found = byId.get(manifestId);
      if (!found) {
        found = manifests
          .read(tenant, manifestId)
          .then((json) =>
            json === undefined ? undefined : detailOf(JSON.parse(json) as Record<string, unknown>),
          );
        byId.set(manifestId, found);
      }
      return found;
    };
  }

  return async function validateFlow(tenant: string, version: FlowVersionRecord) {
    const agents = await deps.classAgents(tenant, version.className, MAX_VALIDATED_AGENTS + 1);
    const truncated = agents.length > MAX_VALIDATED_AGENTS;
    const byManifest = new Map<string | undefined, string[]>();
    for (const agent of agents.slice(0, MAX_VALIDATED_AGENTS)) {
      byManifest.set(agent.manifestId, [...(byManifest.get(agent.manifestId) ?? []), agent.agentId]);
    }
    const typesOf = manifestTypesReader(tenant);
    const reports = await Promise.all(
      [...byManifest].map(async ([manifestId, agentIds]) => {
        const offered = manifestId === undefined ? undefined : await typesOf(manifestId);
        const missing = offered && missingTypes(version, offered);
        return dropUndefined({
          manifestId,
          // Without the manifest Beacon cannot tell: such agents count as unable to run the flow.
          manifestKnown: offered !== undefined,
          compatible: missing !== undefined && isComplete(missing),
          missingProcessorTypes: missing?.processorTypes,
          missingControllerServiceTypes: missing?.controllerServiceTypes,
          agentCount: agentIds.length,
          agentIds: agentIds.slice(0, MAX_AGENT_IDS_PER_MANIFEST),
        });
      }),
    );
    const incompatible = reports.filter((report) => !report.compatible);
    return {
      flowHash: version.hash,
      className: version.className,
      processorTypes: version.processorTypes,
      controllerServiceTypes: version.controllerServiceTypes,
      compatible: incompatible.length === 0,
      agentCount: Math.min(agents.length, MAX_VALIDATED_AGENTS),
      incompatibleAgentCount: incompatible.reduce((total, report) => total + report.agentCount, 0),
      truncated,
      manifests: reports,
    };
  };
}

/** Whether the class's agents could run the version: the report the console shows. */
export type FlowValidation = Awaited<ReturnType<ReturnType<typeof makeFlowValidation>>>;

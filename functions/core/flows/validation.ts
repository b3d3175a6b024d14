import { dropUndefined } from "../c2/json.js";
import { detailOf } from "../manifests/catalog.js";
import type { ManifestCatalog } from "../manifests/ports.js";
import { isComplete, type ManifestTypes, missingTypes } from "./compatibility.js";
import type { FlowVersionRecord } from "./ports.js";

/** Most agents one validation report covers; a larger class is reported on its first ones, and says so. */
const MAX_VALIDATED_AGENTS = 5_000;
/** Agent ids listed per manifest in a validation report; the count covers them all. */
const MAX_AGENT_IDS_PER_MANIFEST = 100;

/** An agent of a class as the agent list shows it. */
export interface ClassAgent {
  agentId: string;
  manifestHash?: string;
}

export interface FlowValidationDependencies {
  manifests: Pick<ManifestCatalog, "read">;
  /** The class's agents as the agent list shows them, reading on until `limit` or the end. */
  classAgents(tenant: string, className: string, limit: number): Promise<ClassAgent[]>;
}

/**
 * A dry run: whether a class's agents could run one of its flow versions, manifest by manifest. Every
 * processor and controller service type the flow uses must be in the agent's manifest.
 */
export function makeFlowValidation(deps: FlowValidationDependencies) {
  const { manifests } = deps;

  /** What each manifest offers, read once per hash; undefined for a manifest Beacon does not hold. */
  function manifestTypesReader(tenant: string) {
    const byHash = new Map<string, Promise<ManifestTypes | undefined>>();
    return (hash: string) => {
      let found = byHash.get(hash);
      if (!found) {
        found = manifests
          .read(tenant, hash)
          .then((json) =>
            json === undefined ? undefined : detailOf(JSON.parse(json) as Record<string, unknown>),
          );
        byHash.set(hash, found);
      }
      return found;
    };
  }

  return async function validateFlow(tenant: string, version: FlowVersionRecord) {
    const agents = await deps.classAgents(tenant, version.className, MAX_VALIDATED_AGENTS + 1);
    const truncated = agents.length > MAX_VALIDATED_AGENTS;
    const byManifest = new Map<string | undefined, string[]>();
    for (const agent of agents.slice(0, MAX_VALIDATED_AGENTS)) {
      byManifest.set(agent.manifestHash, [...(byManifest.get(agent.manifestHash) ?? []), agent.agentId]);
    }
    const typesOf = manifestTypesReader(tenant);
    const reports = await Promise.all(
      [...byManifest].map(async ([manifestHash, agentIds]) => {
        const offered = manifestHash === undefined ? undefined : await typesOf(manifestHash);
        const missing = offered && missingTypes(version, offered);
        return dropUndefined({
          manifestHash,
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

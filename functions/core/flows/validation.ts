import { dropUndefined } from "../json.js";
import { type AllowedPropertyValues, allowedProcessorValuesOf, detailOf } from "../manifests/catalog.js";
import type { ManifestCatalog } from "../manifests/ports.js";
import { isComplete, lastSegment, type ManifestTypes, missingTypes } from "./compatibility.js";
import { parseFlow } from "./document.js";
import {
  type FlowParameter,
  type FlowParameterReading,
  type ParameterReference,
  readFlowParameters,
  referenceSite,
  resolveParameters,
} from "./parameters.js";
import type { FlowContentStore, NewFlowVersion } from "./ports.js";

/** Most agents one validation report covers; a larger class is reported on its first ones, and says so. */
export const MAX_VALIDATED_AGENTS = 5_000;
/** Agent ids listed per binary in a validation report; the count covers them all. */
const MAX_AGENT_IDS_PER_MANIFEST = 100;

/** An agent of a class as the agent list shows it: with its binary, when Beacon knows its manifest. */
export interface ClassAgent {
  agentId: string;
  manifestId?: string;
}

/** A value a binary's processor refuses for a property that allows only listed values. */
export interface RefusedParameterValue {
  parameter: string;
  processorType: string;
  property: string;
  /** The property's value with the parameters' values in. */
  value: string;
  allowed: string[];
}

/**
 * The parameters' values a binary refuses: for each reference from a processor property whose descriptor
 * lists the values it allows, the property's value with the parameters' values in, when it is none of them.
 * A reference to a parameter without a value to check (a sensitive one) is passed over. Pure, so the values
 * checked may be the flow's own or those an agent gets.
 */
export function parameterValuesRefused(
  references: ParameterReference[],
  allowedByType: Map<string, AllowedPropertyValues>,
  valueOfParameter: (parameter: string) => string | undefined,
): RefusedParameterValue[] {
  // A C++ flow may name a processor by its class's last segment (compatibility.ts).
  const byShortType = new Map([...allowedByType].map(([type, allowed]) => [lastSegment(type), allowed]));
  const allowedFor = (type: string) =>
    allowedByType.get(type) ?? (type.includes(".") ? undefined : byShortType.get(type));
  const refused = new Map<string, RefusedParameterValue>();
  for (const reference of references) {
    if (reference.component !== "processor") continue;
    const allowed = allowedFor(reference.componentType)?.get(reference.property);
    const value = allowed && resolveParameters(reference.value, valueOfParameter);
    if (value === undefined || allowed?.includes(value) !== false) continue;
    const { parameter, componentType: processorType, property } = reference;
    const entry = { parameter, processorType, property, value, allowed };
    refused.set(JSON.stringify([parameter, processorType, property, value]), entry);
  }
  return [...refused.values()];
}

/** The flow's own values: the defaults of the parameters it declares, sensitive ones having none. */
export const flowDefaults =
  (declared: FlowParameter[]) =>
  (parameter: string): string | undefined =>
    declared.find((candidate) => candidate.name === parameter)?.default;

/** What a binary offers, read once from its manifest. */
export interface ManifestOffer {
  types: ManifestTypes;
  allowedValues: Map<string, AllowedPropertyValues>;
}

/** What each binary offers, each read once for the reader's life; undefined for one Beacon does not hold. */
export function manifestOfferReader(manifests: Pick<ManifestCatalog, "read">, tenant: string) {
  const byId = new Map<string, Promise<ManifestOffer | undefined>>();
  return (manifestId: string) => {
    let found = byId.get(manifestId);
    if (!found) {
      found = manifests.read(tenant, manifestId).then((json) => {
        if (json === undefined) return undefined;
        const manifest = JSON.parse(json) as Record<string, unknown>;
        return { types: detailOf(manifest), allowedValues: allowedProcessorValuesOf(manifest) };
      });
      byId.set(manifestId, found);
    }
    return found;
  };
}

/** What a stored flow document declares of parameters and where it references them (readFlowParameters). */
export async function parametersInContent(bytes: Uint8Array): Promise<FlowParameterReading> {
  const { document, format } = await parseFlow(bytes, bytes.length);
  return readFlowParameters(document, format);
}

export interface FlowValidationDependencies {
  manifests: Pick<ManifestCatalog, "read">;
  /** The versions' content, whose properties name the parameters they reference. */
  flows: FlowContentStore;
  /** The class's agents as the agent list shows them, reading on until `limit` or the end. */
  classAgents(tenant: string, className: string, limit: number): Promise<ClassAgent[]>;
}

/**
 * A dry run: whether a class's agents could run one of its flow versions, binary by binary (agents of one
 * build share a manifest's content, whatever their own manifest hashes). Every processor and controller
 * service type the flow uses must be in the agent's manifest.
 */
export function makeFlowValidation(deps: FlowValidationDependencies) {
  /** The version's parameters as its document has them: versions stored before keep none. */
  async function parametersOf(tenant: string, version: NewFlowVersion, unstored?: Uint8Array) {
    const bytes = unstored ?? (await deps.flows.read(tenant, version.hash))?.bytes;
    if (!bytes) return { declared: version.parameters ?? [], references: [], undeclared: [] };
    return parametersInContent(bytes);
  }

  /** `unstored`: the bytes of a version not stored yet, checked before it is (else read from the store). */
  return async function validateFlow(tenant: string, version: NewFlowVersion, unstored?: Uint8Array) {
    const parameters = await parametersOf(tenant, version, unstored);
    const defaults = flowDefaults(parameters.declared);
    const agents = await deps.classAgents(tenant, version.className, MAX_VALIDATED_AGENTS + 1);
    const truncated = agents.length > MAX_VALIDATED_AGENTS;
    const byManifest = new Map<string | undefined, string[]>();
    for (const agent of agents.slice(0, MAX_VALIDATED_AGENTS)) {
      byManifest.set(agent.manifestId, [...(byManifest.get(agent.manifestId) ?? []), agent.agentId]);
    }
    const offerOf = manifestOfferReader(deps.manifests, tenant);
    const reports = await Promise.all(
      [...byManifest].map(async ([manifestId, agentIds]) => {
        const offered = manifestId === undefined ? undefined : await offerOf(manifestId);
        const missing = offered && missingTypes(version, offered.types);
        return dropUndefined({
          manifestId,
          // Without the manifest Beacon cannot tell: such agents count as unable to run the flow.
          manifestKnown: offered !== undefined,
          compatible: missing !== undefined && isComplete(missing),
          missingProcessorTypes: missing?.processorTypes,
          missingControllerServiceTypes: missing?.controllerServiceTypes,
          valuesRefused:
            offered && parameterValuesRefused(parameters.references, offered.allowedValues, defaults),
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
      parameters: parameters.declared,
      // Versions stored before publishing refused them may reference parameters nobody declares.
      undeclaredParameters: parameters.undeclared.map(referenceSite),
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

import { dropUndefined } from "../c2/json.js";
import { BeaconError } from "../errors.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { detailOf } from "../manifests/catalog.js";
import type { ManifestCatalog } from "../manifests/ports.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import { isComplete, type ManifestTypes, missingTypes } from "./compatibility.js";
import { isFlowHash, readFlowDocument } from "./document.js";
import type { FlowCatalog, FlowVersionRecord } from "./ports.js";

/** Most agents one validation report covers; a larger class is reported on its first ones, and says so. */
const MAX_VALIDATED_AGENTS = 5_000;
/** Agent ids listed per manifest in a validation report; the count covers them all. */
const MAX_AGENT_IDS_PER_MANIFEST = 100;

/** An agent of a class as the agent list shows it. */
export interface ClassAgent {
  agentId: string;
  manifestHash?: string;
}

export interface FlowsDependencies {
  flows: FlowCatalog;
  manifests: ManifestCatalog;
  clock: Clock;
  /** Largest flow document accepted, inflated. */
  maxFlowBytes: number;
  /** The class's agents as the agent list shows them, reading on until `limit` or the end. */
  classAgents(principal: Principal, className: string, limit: number): Promise<ClassAgent[]>;
}

const flowVersionView = (record: FlowVersionRecord) => ({
  hash: record.hash,
  className: record.className,
  format: record.format,
  contentType: record.contentType,
  sizeBytes: record.sizeBytes,
  gzipBytes: record.gzipBytes,
  processorTypes: record.processorTypes,
  controllerServiceTypes: record.controllerServiceTypes,
  createdAt: toIso(record.createdAt) as string,
  createdBy: record.createdBy,
});

export function makeFlowsApi(deps: FlowsDependencies) {
  const { flows, manifests, clock } = deps;

  async function findVersion(tenant: string, className: string, hash: string): Promise<FlowVersionRecord> {
    const record = isFlowHash(hash) ? await flows.get(tenant, className, hash) : undefined;
    if (!record) throw new BeaconError("not_found", "The class has no such flow version");
    return record;
  }

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

  return {
    /** Publishes a flow version for the class: immutable, addressed by the SHA-256 of the bytes. */
    async upload(principal: Principal, className: string, bytes: Uint8Array): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const document = readFlowDocument(bytes, deps.maxFlowBytes);
      const { record, created } = await flows.add(
        principal.tenant,
        { ...document, className, createdAt: clock.now(), createdBy: principal.subject },
        bytes,
      );
      return { status: created ? 201 : 200, body: flowVersionView(record) };
    },

    async list(
      principal: Principal,
      className: string,
      request: { cursor?: string; limit?: number },
    ): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const page = await flows.list(principal.tenant, className, pageRequestOf(request, isFlowHash));
      return { body: pageBodyOf(page, flowVersionView) };
    },

    async get(principal: Principal, className: string, hash: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      return { body: flowVersionView(await findVersion(principal.tenant, className, hash)) };
    },

    async content(principal: Principal, className: string, hash: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      await findVersion(principal.tenant, className, hash);
      const content = await flows.read(principal.tenant, hash);
      if (!content) throw new BeaconError("not_found", "The class has no such flow version");
      return { body: Buffer.from(content.bytes).toString("utf8"), contentType: content.contentType };
    },

    /**
     * A dry run: whether the class's agents could run the version, manifest by manifest. Every processor
     * and controller service type the flow uses must be in the agent's manifest.
     */
    async validate(principal: Principal, className: string, hash: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const { tenant } = principal;
      const version = await findVersion(tenant, className, hash);
      const agents = await deps.classAgents(principal, className, MAX_VALIDATED_AGENTS + 1);
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
        body: {
          flowHash: version.hash,
          className,
          processorTypes: version.processorTypes,
          controllerServiceTypes: version.controllerServiceTypes,
          compatible: incompatible.length === 0,
          agentCount: Math.min(agents.length, MAX_VALIDATED_AGENTS),
          incompatibleAgentCount: incompatible.reduce((total, report) => total + report.agentCount, 0),
          truncated,
          manifests: reports,
        },
      };
    },
  };
}

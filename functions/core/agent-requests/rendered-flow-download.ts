import { createHash } from "node:crypto";
import type { AgentRegistry } from "../agents/ports.js";
import { BeaconError } from "../errors.js";
import { isFlowHash } from "../flows/flow-hash.js";
import type { FlowParameter } from "../flows/parameters.js";
import type { FlowCatalog } from "../flows/ports.js";
import { renderFlow } from "../flows/rendering.js";
import type { CacheBreaker } from "../guarded-cache.js";
import { type AgentCredential, authorizeAgent, isValidIdentifier } from "../identity/credentials.js";
import type { RevocationCache, RevocationList } from "../identity/ports.js";
import { effectiveParameters, type LayerValues } from "../parameters/effective.js";
import { layersOverClass, type ValuesOverClassOf } from "../parameters/over-class.js";
import type { ParameterStore, SecretStore } from "../parameters/ports.js";
import {
  type SecretReference,
  TENANT_SECRET_RULE,
  tenantSecretReference,
} from "../parameters/secret-refs.js";
import type { StoredContent } from "../ports.js";
import { makeContentDownload } from "./content-download.js";

export interface RenderedFlowDownloadDependencies {
  registry: Pick<AgentRegistry, "get">;
  flows: Pick<FlowCatalog, "get" | "read">;
  parameters: Pick<ParameterStore, "list" | "frozen">;
  /** The agent's values over its class: its groups' and its own. */
  valuesOverClass: ValuesOverClassOf;
  secrets: SecretStore;
  revocations: RevocationList;
  hotState: RevocationCache;
  cacheBreaker?: CacheBreaker;
}

/** Which agent's rendering of which flow version; with the values a rollout of staged values froze, if named. */
export interface RenderedFlowId {
  agentId: string;
  flowId: string;
  rolloutId?: string;
}

/** What the agent's values are made of: the plain ones as they are, the secrets still to be read. */
export interface RenderingValues {
  values: Map<string, string>;
  secrets: { parameter: string; reference: SecretReference }[];
}

const missing = (parameter: string, why: string) =>
  new BeaconError("parameter_value_missing", `The flow's parameter ${parameter} ${why}`, { parameter });

/**
 * The values each parameter the version declares takes for the agent, layer over layer (effective.ts). A
 * declared parameter left without a value, or whose reference names no secret of the tenant's, refuses the
 * download: the agent's UPDATE CONFIGURATION then fails where an operator sees it, rather than running a flow
 * that cannot work. Values of names the version does not declare are not rendered, nor their secrets read.
 */
export function renderingValuesOf(
  tenant: string,
  declared: readonly FlowParameter[],
  layers: LayerValues,
): RenderingValues {
  const rendering: RenderingValues = { values: new Map(), secrets: [] };
  for (const { name, declared: declaration, value } of effectiveParameters(declared, layers)) {
    if (!declaration) continue;
    if (!value) throw missing(name, "has no value: the flow gives none and no layer sets one");
    if ("value" in value) {
      rendering.values.set(name, value.value);
      continue;
    }
    const reference = tenantSecretReference(tenant, value.secretRef);
    if (!reference) throw missing(name, `references a secret outside the tenant's: ${TENANT_SECRET_RULE}`);
    rendering.secrets.push({ parameter: name, reference });
  }
  return rendering;
}

/** The secrets read into the values; a secret the store lacks or cannot give names its parameter, never more. */
async function resolvedValues(
  secrets: SecretStore,
  rendering: RenderingValues,
): Promise<Map<string, string>> {
  const values = new Map(rendering.values);
  await Promise.all(
    rendering.secrets.map(async ({ parameter, reference }) => {
      let secret: string | undefined;
      try {
        secret = await secrets.read(reference);
      } catch {
        throw new BeaconError(
          "secret_unavailable",
          `The secret of the flow's parameter ${parameter} could not be read`,
          { parameter },
        );
      }
      if (secret === undefined)
        throw new BeaconError(
          "secret_unavailable",
          `The secret the flow's parameter ${parameter} references does not exist`,
          { parameter },
        );
      values.set(parameter, secret);
    }),
  );
  return values;
}

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/**
 * The flow version an UPDATE CONFIGURATION sent an agent to, rendered with the agent's own parameter values:
 * the version's declared parameters, over which the class's values, its groups' and its own are laid,
 * secrets read by reference. A rollout of the class's staged values sends its
 * members to the rendering with the values it froze in place of the class's: one query as the class's is. The certificate must speak for the agent, which
 * must be of the tenant, and the version one of the agent's class; else there is no such flow. Its entity tag
 * is the rendered bytes' hash, which changes when a value does.
 */
export function makeRenderedFlowDownload(deps: RenderedFlowDownloadDependencies) {
  const { registry, flows, parameters, secrets } = deps;

  async function render(credential: AgentCredential, id: RenderedFlowId): Promise<StoredContent | undefined> {
    const { tenant } = credential;
    authorizeAgent(credential, id.agentId);
    const agent = await registry.get(tenant, id.agentId);
    if (!agent) return undefined;
    const [version, content, classValues, overClass] = await Promise.all([
      flows.get(tenant, agent.agentClass, id.flowId),
      flows.read(tenant, id.flowId),
      id.rolloutId === undefined
        ? parameters.list(tenant, { layer: "class", className: agent.agentClass })
        : parameters.frozen(tenant, agent.agentClass, id.rolloutId),
      deps.valuesOverClass(tenant, id.agentId, agent),
    ]);
    if (!version || !content) return undefined;
    const rendering = renderingValuesOf(tenant, version.parameters ?? [], {
      class: classValues,
      ...layersOverClass(overClass),
    });
    const bytes = renderFlow(
      content.bytes,
      version.parameterSlots ?? [],
      await resolvedValues(secrets, rendering),
    );
    return { hash: sha256(bytes), contentType: version.contentType, bytes };
  }

  return makeContentDownload<RenderedFlowId>({
    ...deps,
    read: render,
    isId: ({ agentId, flowId, rolloutId }) =>
      isValidIdentifier(agentId) &&
      isFlowHash(flowId) &&
      (rolloutId === undefined || isValidIdentifier(rolloutId)),
    what: "flow",
  });
}

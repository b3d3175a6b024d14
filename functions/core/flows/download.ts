import { BeaconError } from "../errors.js";
import { guardedCache } from "../guarded-cache.js";
import type { AgentCredential } from "../identity/credentials.js";
import type { RevocationCache, RevocationList } from "../identity/ports.js";
import { makeRevocationCheck } from "../identity/revocation.js";
import { isFlowHash } from "./document.js";
import type { FlowContent, FlowContentStore } from "./ports.js";

export interface FlowDownloadDependencies {
  flows: FlowContentStore;
  revocations: RevocationList;
  hotState: RevocationCache;
}

/** A flow download: the stored version, or `notModified` when the agent holds it already. */
export type FlowDownloadOutcome =
  | { notModified: true; content?: undefined; cacheError?: unknown }
  | { notModified: false; content: FlowContent; cacheError?: unknown };

/** The entity tag of a flow version: its hash, which changes exactly when its bytes do. */
export const flowEntityTag = (hash: string): string => `"${hash}"`;

/** Whether an If-None-Match header names the version (weak tags compare equal, as a GET allows). */
function matchesAny(ifNoneMatch: string | undefined, hash: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const tag = flowEntityTag(hash);
  return ifNoneMatch
    .split(",")
    .map((entry) => entry.trim().replace(/^W\//, ""))
    .some((entry) => entry === "*" || entry === tag);
}

/**
 * The flow an UPDATE CONFIGURATION sent an agent to. A client certificate of the tenant that published
 * it may fetch it, under the same revocation rules as heartbeats; another tenant's flow does not exist.
 */
export function makeFlowDownload(deps: FlowDownloadDependencies) {
  const revocationCheck = makeRevocationCheck(deps);
  return async function downloadFlow(
    credential: AgentCredential,
    flowId: string,
    ifNoneMatch: string | undefined,
  ): Promise<FlowDownloadOutcome> {
    const cache = guardedCache();
    await revocationCheck.assertNotRevoked(credential, cache);
    const content = isFlowHash(flowId) ? await deps.flows.read(credential.tenant, flowId) : undefined;
    if (!content) throw new BeaconError("not_found", "No such flow");
    if (matchesAny(ifNoneMatch, content.hash)) return { notModified: true, cacheError: cache.error };
    return { notModified: false, content, cacheError: cache.error };
  };
}

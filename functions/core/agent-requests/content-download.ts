import { BeaconError } from "../errors.js";
import { type CacheBreaker, guardedCache } from "../guarded-cache.js";
import type { AgentCredential } from "../identity/credentials.js";
import type { RevocationCache, RevocationList } from "../identity/ports.js";
import { makeRevocationCheck } from "../identity/revocation.js";
import type { StoredContent } from "../ports.js";

export interface ContentDownloadDependencies {
  /** The tenant's content by hash; undefined when the tenant has none by that hash. */
  read(tenant: string, hash: string): Promise<StoredContent | undefined>;
  /** Whether an id can name such content at all: anything else is nobody's, and costs no read. */
  isId(id: string): boolean;
  /** What the content is, for the 404's message ("flow", "asset"). */
  what: string;
  revocations: RevocationList;
  hotState: RevocationCache;
  cacheBreaker?: CacheBreaker;
}

/** A download: the stored bytes, or `notModified` when the agent holds them already. */
export type DownloadOutcome =
  | { notModified: true; content?: undefined; cacheError?: unknown }
  | { notModified: false; content: StoredContent; cacheError?: unknown };

/** The entity tag of content addressed by its hash, which changes exactly when its bytes do. */
export const entityTag = (hash: string): string => `"${hash}"`;

/** Whether an If-None-Match header names the content (weak tags compare equal, as a GET allows). */
function matchesAny(ifNoneMatch: string | undefined, hash: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const tag = entityTag(hash);
  return ifNoneMatch
    .split(",")
    .map((entry) => entry.trim().replace(/^W\//, ""))
    .some((entry) => entry === "*" || entry === tag);
}

/**
 * Content an operation sent an agent to. A client certificate of the tenant that stored it may fetch it,
 * under the same revocation rules as heartbeats; another tenant's content does not exist.
 */
export function makeContentDownload(deps: ContentDownloadDependencies) {
  const revocationCheck = makeRevocationCheck(deps);
  return async function download(
    credential: AgentCredential,
    id: string,
    ifNoneMatch: string | undefined,
  ): Promise<DownloadOutcome> {
    const cache = guardedCache(deps.cacheBreaker);
    await revocationCheck.assertNotRevoked(credential, cache);
    const content = deps.isId(id) ? await deps.read(credential.tenant, id) : undefined;
    if (!content) throw new BeaconError("not_found", `No such ${deps.what}`);
    if (matchesAny(ifNoneMatch, content.hash)) return { notModified: true, cacheError: cache.error };
    return { notModified: false, content, cacheError: cache.error };
  };
}

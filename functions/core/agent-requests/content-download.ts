import { BeaconError } from "../errors.js";
import { type CacheBreaker, guardedCache } from "../guarded-cache.js";
import type { AgentCredential } from "../identity/credentials.js";
import type { RevocationCache, RevocationList } from "../identity/ports.js";
import { makeRevocationCheck } from "../identity/revocation.js";
import type { StoredContent, StreamedContent } from "../ports.js";

/** What a download serves: stored bytes, or a stream of them (assets, of any size). */
export type DownloadContent = StoredContent | StreamedContent;

export interface ContentDownloadDependencies<Id = string, Content extends DownloadContent = StoredContent> {
  /** The content the id names for the credential's holder; undefined when it has none by that id. */
  read(credential: AgentCredential, id: Id): Promise<Content | undefined>;
  /** Whether an id can name such content at all: anything else is nobody's, and costs no read. */
  isId(id: Id): boolean;
  /** What the content is, for the 404's message ("flow", "asset"). */
  what: string;
  revocations: RevocationList;
  hotState: RevocationCache;
  cacheBreaker?: CacheBreaker;
}

/**
 * A download: the stored bytes, or `notModified` when the agent holds them already; either way the entity tag
 * of the bytes.
 */
export type DownloadOutcome<Content extends DownloadContent = StoredContent> =
  | { notModified: true; tag: string; content?: undefined; cacheError?: unknown }
  | { notModified: false; tag: string; content: Content; cacheError?: unknown };

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
export function makeContentDownload<Id = string, Content extends DownloadContent = StoredContent>(
  deps: ContentDownloadDependencies<Id, Content>,
) {
  const revocationCheck = makeRevocationCheck(deps);
  return async function download(
    credential: AgentCredential,
    id: Id,
    ifNoneMatch: string | undefined,
  ): Promise<DownloadOutcome<Content>> {
    const cache = guardedCache(deps.cacheBreaker);
    await revocationCheck.assertNotRevoked(credential, cache);
    const content = deps.isId(id) ? await deps.read(credential, id) : undefined;
    if (!content) throw new BeaconError("not_found", `No such ${deps.what}`);
    const tag = entityTag(content.hash);
    if (matchesAny(ifNoneMatch, content.hash)) {
      // The agent holds the bytes: a stream opened for them is let go unread.
      if ("body" in content) await content.body.cancel();
      return { notModified: true, tag, cacheError: cache.error };
    }
    return { notModified: false, tag, content, cacheError: cache.error };
  };
}

import { isFlowHash } from "../flows/flow-hash.js";
import type { FlowContentStore } from "../flows/ports.js";
import type { CacheBreaker } from "../guarded-cache.js";
import type { RevocationCache, RevocationList } from "../identity/ports.js";
import { makeContentDownload } from "./content-download.js";

export interface FlowDownloadDependencies {
  flows: FlowContentStore;
  revocations: RevocationList;
  hotState: RevocationCache;
  cacheBreaker?: CacheBreaker;
}

/** The flow an UPDATE CONFIGURATION sent an agent to, by its hash (the flow id). */
export const makeFlowDownload = (deps: FlowDownloadDependencies) =>
  makeContentDownload({
    ...deps,
    read: (credential, hash) => deps.flows.read(credential.tenant, hash),
    isId: isFlowHash,
    what: "flow",
  });

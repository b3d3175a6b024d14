import { makeContentDownload } from "../downloads.js";
import type { CacheBreaker } from "../guarded-cache.js";
import type { RevocationCache, RevocationList } from "../identity/ports.js";
import { isFlowHash } from "./flow-hash.js";
import type { FlowContentStore } from "./ports.js";

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
    read: (tenant, hash) => deps.flows.read(tenant, hash),
    isId: isFlowHash,
    what: "flow",
  });

import type { OperationArgs } from "../c2/model.js";
import { assetContentUrl } from "../c2/routes.js";
import type { AssetRecord } from "./model.js";
import { DIGEST_ALGORITHM, type ResourceSet } from "./resource-set.js";

/**
 * SYNC RESOURCE's args: the whole set (agents delete what it does not list) in the documented object form,
 * every item of type ASSET (C++ syncs no other), each with its digest so MiNiFi Java skips files it holds.
 */
export const syncResourceArgs = (set: ResourceSet, agentApiUrl: string): OperationArgs => ({
  globalHash: { digest: set.digest, hashType: DIGEST_ALGORITHM },
  resourceList: set.entries.map((entry) => ({
    resourceId: entry.assetId,
    resourceName: entry.name,
    resourceType: "ASSET",
    resourcePath: entry.path,
    digest: entry.assetId,
    hashType: DIGEST_ALGORITHM,
    url: assetContentUrl(agentApiUrl, entry.assetId),
  })),
});

/** UPDATE ASSET's args: the file name, where to download it, and `forceDownload` as the string agents parse. */
export const updateAssetArgs = (
  asset: Pick<AssetRecord, "assetId" | "name">,
  agentApiUrl: string,
  forceDownload: boolean,
): OperationArgs => ({
  file: asset.name,
  url: assetContentUrl(agentApiUrl, asset.assetId),
  forceDownload: String(forceDownload),
});

/** The digest a SYNC RESOURCE asks agents to report once it is applied (`resourceInfo.hash`). */
export function syncDigestOf(args: OperationArgs | undefined): string | undefined {
  const globalHash = args?.globalHash;
  if (typeof globalHash !== "object" || Array.isArray(globalHash)) return undefined;
  return typeof globalHash.digest === "string" ? globalHash.digest : undefined;
}

import { BeaconError } from "../errors.js";
import type { LinkDownloadMeter } from "../events/link-downloads.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { isValidOperationId } from "../operations/ids.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import { type ConsoleResult, DOWNLOAD_LINK_SECONDS, downloadLink } from "../result.js";
import type { DebugBundle } from "./model.js";
import type { DebugBundleContent, DebugBundleStore } from "./ports.js";

export interface DebugBundleReadsDependencies {
  debugBundles: DebugBundleStore;
  debugBundleContent: DebugBundleContent;
  clock: Clock;
  meterLinkDownload: LinkDownloadMeter;
}

const bundleView = (bundle: DebugBundle) => ({
  operationId: bundle.operationId,
  agentId: bundle.agentId,
  bytes: bundle.bytes,
  storedAt: toIso(bundle.storedAt) as string,
  expiresAt: toIso(bundle.expiresAt) as string,
});

/** The file name a download is saved as: the agent's and the operation's, in characters every file system takes. */
const fileNameOf = (bundle: DebugBundle) =>
  `debug-${bundle.operationId.replace(/[^A-Za-z0-9._-]/g, "_")}.tar.gz`;

/** The console's reads of the debug bundles agents uploaded. */
export function makeDebugBundlesApi(deps: DebugBundleReadsDependencies) {
  const { debugBundles, clock } = deps;

  /**
   * The bundle, until it expires: the bucket's lifecycle deletes it at a day's boundary after, so it is gone for
   * the console already, and every bundle lasts the same.
   */
  async function findBundle(tenant: string, operationId: string): Promise<DebugBundle> {
    const bundle = isValidOperationId(operationId) ? await debugBundles.get(tenant, operationId) : undefined;
    if (!bundle) throw new BeaconError("not_found", "No such debug bundle");
    if (clock.now() >= bundle.expiresAt)
      throw new BeaconError("result_expired", "The debug bundle has expired");
    return bundle;
  }

  return {
    async list(
      principal: Principal,
      request: { cursor?: string; limit?: number; agentId?: string },
    ): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const page = await debugBundles.list(
        principal.tenant,
        pageRequestOf(request, isValidOperationId),
        clock.now(),
        request.agentId,
      );
      return { body: pageBodyOf(page, bundleView) };
    },

    async get(principal: Principal, operationId: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      return { body: bundleView(await findBundle(principal.tenant, operationId)) };
    },

    /**
     * A redirect to the bytes in the bucket, for a few minutes: a bundle may be 16 MiB, more than a Lambda
     * answer carries; with `redirect: false`, the same link in a 200's body, for a web page, which cannot read
     * a redirect. Operators and admins only: a bundle holds the agent's logs and configuration. Each link is
     * metered as a download of the whole bundle.
     */
    async download(
      principal: Principal,
      operationId: string,
      options: { redirect?: boolean } = {},
    ): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const bundle = await findBundle(principal.tenant, operationId);
      const location = await deps.debugBundleContent.downloadUrl(
        bundle,
        fileNameOf(bundle),
        DOWNLOAD_LINK_SECONDS,
      );
      await deps.meterLinkDownload(principal.tenant, "debugBundle", bundle.bytes, clock.now());
      return downloadLink(location, options);
    },
  };
}

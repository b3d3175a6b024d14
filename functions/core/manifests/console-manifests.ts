import { BeaconError } from "../errors.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { dropUndefined } from "../json.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { ConsoleResult } from "../result.js";
import { binaryNameOf } from "./binary-name.js";
import { detailOf, isManifestId } from "./catalog.js";
import type { ManifestCatalog, ManifestRecord } from "./ports.js";

const listItem = (record: ManifestRecord) =>
  dropUndefined({
    manifestId: record.manifestId,
    name: binaryNameOf(record),
    agentType: record.agentType,
    version: record.version,
    bundleCount: record.bundleCount,
    processorTypeCount: record.processorTypeCount,
    controllerServiceTypeCount: record.controllerServiceTypeCount,
    jsonBytes: record.jsonBytes,
    gzipBytes: record.gzipBytes,
    createdAt: toIso(record.createdAt) as string,
  });

export function makeManifestsApi(deps: { catalog: ManifestCatalog }) {
  const { catalog } = deps;

  async function content(tenant: string, manifestId: string): Promise<string> {
    const json = isManifestId(manifestId) ? await catalog.read(tenant, manifestId) : undefined;
    if (json === undefined) throw new BeaconError("not_found", "No such manifest");
    return json;
  }

  return {
    async list(principal: Principal, request: { cursor?: string; limit?: number }): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const page = await catalog.list(principal.tenant, pageRequestOf(request, isManifestId));
      return { body: pageBodyOf(page, listItem) };
    },

    /** The stored summary, with bundles and component types read from the content itself. */
    async get(principal: Principal, manifestId: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const record = isManifestId(manifestId) ? await catalog.get(principal.tenant, manifestId) : undefined;
      if (!record) throw new BeaconError("not_found", "No such manifest");
      const manifest = JSON.parse(await content(principal.tenant, manifestId)) as Record<string, unknown>;
      return { body: { ...listItem(record), ...detailOf(manifest) } };
    },

    async content(principal: Principal, manifestId: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      return { body: await content(principal.tenant, manifestId) };
    },
  };
}

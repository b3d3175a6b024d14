import { BeaconError } from "../errors.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { asArray, asObject, asString, dropUndefined } from "../json.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { ConsoleResult } from "../result.js";
import type { ManifestCatalog, ManifestRecord } from "./ports.js";

/** The agent API's bound on the hash an agent reports for its manifest. */
const MANIFEST_HASH_PATTERN = /^[A-Za-z0-9+/=._:-]{1,512}$/;
export const isManifestHash = (hash: string): boolean => MANIFEST_HASH_PATTERN.test(hash);
/** A binary's canonical identity (canonical.ts): SHA-256, lower-case hex. */
const MANIFEST_ID_PATTERN = /^[0-9a-f]{64}$/;
export const isManifestId = (manifestId: string): boolean => MANIFEST_ID_PATTERN.test(manifestId);

export interface ManifestDetail {
  bundles: { group?: string; artifact?: string; version?: string }[];
  processorTypes: string[];
  controllerServiceTypes: string[];
}

/** Bundles and component types of a manifest, as both agent dialects lay them out. */
export function detailOf(manifest: Record<string, unknown>): ManifestDetail {
  const bundles = asArray(manifest.bundles).map((entry) => asObject(entry) ?? {});
  const typesOf = (kind: string) =>
    [
      ...new Set(
        bundles.flatMap((bundle) =>
          asArray(asObject(bundle.componentManifest)?.[kind]).flatMap((component) => {
            const type = asString(asObject(component)?.type);
            return type === undefined ? [] : [type];
          }),
        ),
      ),
    ].sort();
  return {
    bundles: bundles.map((bundle) =>
      dropUndefined({
        group: asString(bundle.group),
        artifact: asString(bundle.artifact),
        version: asString(bundle.version),
      }),
    ),
    processorTypes: typesOf("processors"),
    controllerServiceTypes: typesOf("controllerServices"),
  };
}

const listItem = (record: ManifestRecord) =>
  dropUndefined({
    manifestId: record.manifestId,
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

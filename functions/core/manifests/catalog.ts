import { asArray, asObject, asString, dropUndefined } from "../json.js";

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

/** The values a property allows, by property name, for the properties whose descriptors list them. */
export type AllowedPropertyValues = Map<string, string[]>;

/**
 * The processors' properties that allow only listed values (`allowableValues`), by processor type, as both
 * agent dialects describe them: `propertyDescriptors` keyed by property name.
 */
export function allowedProcessorValuesOf(
  manifest: Record<string, unknown>,
): Map<string, AllowedPropertyValues> {
  const byType = new Map<string, AllowedPropertyValues>();
  for (const bundle of asArray(manifest.bundles)) {
    for (const entry of asArray(asObject(asObject(bundle)?.componentManifest)?.processors)) {
      const processor = asObject(entry);
      const type = asString(processor?.type);
      if (!processor || type === undefined) continue;
      const properties = byType.get(type) ?? new Map<string, string[]>();
      for (const [property, descriptor] of Object.entries(asObject(processor.propertyDescriptors) ?? {})) {
        const allowed = asArray(asObject(descriptor)?.allowableValues).flatMap((allowable) => {
          const value = asString(asObject(allowable)?.value);
          return value === undefined ? [] : [value];
        });
        if (allowed.length > 0) properties.set(asString(asObject(descriptor)?.name) ?? property, allowed);
      }
      byType.set(type, properties);
    }
  }
  return byType;
}

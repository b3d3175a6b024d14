/**
 * What the class's binaries offer the designer: the processors and controller services their manifests
 * list, each with its property descriptors and relationships, and how many of the class's agents run a
 * binary that lists it. Both agent dialects lay manifests out alike; the C++ one writes its leaves as
 * strings (`"required":"false"`), which the readers take as Java's booleans.
 */
import { asArray, asBoolean, asObject, asString } from "../../../functions/core/json.js";
import type { ComponentKind } from "./flow-model.js";

export interface PropertyDescriptor {
  name: string;
  displayName: string;
  description?: string;
  required: boolean;
  sensitive: boolean;
  defaultValue?: string;
  allowableValues: { value: string; displayName: string }[];
  /** `NONE` when the property takes no Expression Language, else its scope (`FLOWFILE_ATTRIBUTES`). */
  expressionLanguageScope: string;
}

export interface ComponentDescriptor {
  kind: Exclude<ComponentKind, "funnel">;
  type: string;
  description?: string;
  properties: PropertyDescriptor[];
  relationships: string[];
  /** Whether it takes properties its manifest does not describe, named by the operator. */
  dynamicProperties: boolean;
}

/** A component the class's binaries list, with how many of the class's agents can run it. */
export interface PaletteEntry extends ComponentDescriptor {
  agentCount: number;
}

/** A binary of the class: its manifest's content and how many of the class's agents run it. */
export interface ClassBinary {
  manifest: unknown;
  agentCount: number;
}

const MANIFEST_KINDS = { processors: "processor", controllerServices: "controllerService" } as const;

function propertyOf(key: string, value: unknown): PropertyDescriptor {
  const descriptor = asObject(value) ?? {};
  const name = asString(descriptor.name) ?? key;
  const description = asString(descriptor.description);
  const defaultValue = asString(descriptor.defaultValue);
  return {
    name,
    displayName: asString(descriptor.displayName) ?? name,
    ...(description === undefined ? {} : { description }),
    required: asBoolean(descriptor.required) ?? false,
    sensitive: asBoolean(descriptor.sensitive) ?? false,
    ...(defaultValue === undefined ? {} : { defaultValue }),
    allowableValues: asArray(descriptor.allowableValues).flatMap((entry) => {
      const allowable = asObject(entry);
      const allowed = asString(allowable?.value);
      return allowed === undefined
        ? []
        : [{ value: allowed, displayName: asString(allowable?.displayName) ?? allowed }];
    }),
    expressionLanguageScope:
      asString(descriptor.expressionLanguageScope) ??
      (asBoolean(descriptor.supportsEl) || asBoolean(descriptor.expressionLanguageSupported)
        ? "ENVIRONMENT"
        : "NONE"),
  };
}

/** The processors and controller services one manifest lists. */
export function componentsOf(manifest: unknown): ComponentDescriptor[] {
  return asArray(asObject(manifest)?.bundles).flatMap((bundle) => {
    const listed = asObject(asObject(bundle)?.componentManifest) ?? {};
    return (Object.keys(MANIFEST_KINDS) as (keyof typeof MANIFEST_KINDS)[]).flatMap((key) =>
      asArray(listed[key]).flatMap((entry) => {
        const component = asObject(entry);
        const type = asString(component?.type);
        if (!component || type === undefined) return [];
        const description = asString(component.typeDescription);
        return [
          {
            kind: MANIFEST_KINDS[key],
            type,
            ...(description === undefined ? {} : { description }),
            properties: Object.entries(asObject(component.propertyDescriptors) ?? {}).map(([name, value]) =>
              propertyOf(name, value),
            ),
            relationships: asArray(component.supportedRelationships).flatMap((relationship) => {
              const name = asString(asObject(relationship)?.name);
              return name === undefined ? [] : [name];
            }),
            dynamicProperties: asBoolean(component.supportsDynamicProperties) ?? false,
          },
        ];
      }),
    );
  });
}

/** Every component the binaries list, once, with the agents that can run it, sorted by kind then name. */
export function paletteOf(binaries: ClassBinary[]): PaletteEntry[] {
  const byType = new Map<string, PaletteEntry>();
  for (const binary of binaries) {
    for (const component of componentsOf(binary.manifest)) {
      const key = `${component.kind} ${component.type}`;
      const known = byType.get(key);
      if (known) known.agentCount += binary.agentCount;
      else byType.set(key, { ...component, agentCount: binary.agentCount });
    }
  }
  return [...byType.values()].sort(
    (a, b) => a.kind.localeCompare(b.kind) || shortType(a.type).localeCompare(shortType(b.type)),
  );
}

/** A type's last segment, as the designer names a component and as a C++ flow may name its class. */
export const shortType = (type: string): string => type.split(".").pop() ?? type;

/** The palette's entry for a flow's type: by full name, or by last segment as a C++ flow may name it. */
export function descriptorFor(palette: PaletteEntry[], type: string | undefined): PaletteEntry | undefined {
  if (type === undefined) return undefined;
  return (
    palette.find((entry) => entry.type === type) ??
    (type.includes(".") ? undefined : palette.find((entry) => shortType(entry.type) === type))
  );
}

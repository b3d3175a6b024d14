import { asArray, asObject, asString } from "../json.js";
import { inRange, type VersionRange } from "./versions.js";

export const ComponentKinds = ["processor", "controllerService"] as const;
export type ComponentKind = (typeof ComponentKinds)[number];

/** The manifest's list of each kind within a bundle's `componentManifest`. */
const LISTS: Readonly<Record<ComponentKind, string>> = {
  processor: "processors",
  controllerService: "controllerServices",
};

/**
 * A component an agent must be able to run: its type (the fully qualified class name both agents list),
 * optionally in a bundle of this group and artifact, and of a bundle version in the range.
 */
export interface ComponentCriterion {
  kind: ComponentKind;
  type: string;
  group?: string;
  artifact?: string;
  version?: VersionRange;
}

/**
 * Whether a binary's manifest (as stored, canonical or as the agent sent it) lists the component in a bundle
 * that meets the criterion. Java lists each component with its own bundle coordinates; C++ leaves them to the
 * bundle that lists it, so the bundle's are taken where the component states none.
 */
export function canRun(manifest: Record<string, unknown>, criterion: ComponentCriterion): boolean {
  return asArray(manifest.bundles).some((entry) => {
    const bundle = asObject(entry) ?? {};
    const components = asArray(asObject(bundle.componentManifest)?.[LISTS[criterion.kind]]);
    return components.some((item) => {
      const component = asObject(item) ?? {};
      const coordinate = (field: "group" | "artifact" | "version") =>
        asString(component[field]) ?? asString(bundle[field]);
      return (
        asString(component.type) === criterion.type &&
        (criterion.group === undefined || coordinate("group") === criterion.group) &&
        (criterion.artifact === undefined || coordinate("artifact") === criterion.artifact) &&
        (criterion.version === undefined || inRange(coordinate("version"), criterion.version))
      );
    });
  });
}

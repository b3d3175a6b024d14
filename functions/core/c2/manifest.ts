import { asArray, asObject, asString, type JsonObject } from "../json.js";

/**
 * What an agent can be asked to do: upper-case operation → upper-case operands ("" when the
 * operation takes none). Java writes these upper-case, C++ lower-case; comparisons ignore case.
 */
export type SupportedOperations = Record<string, string[]>;

/**
 * Where an agent's heartbeat or acknowledgement carries its manifest's bundles: most of the manifest (~400 KB
 * for C++), the same bytes from every agent of one build.
 */
export const MANIFEST_BUNDLES_PATH: readonly string[] = ["agentInfo", "agentManifest", "bundles"];

/** One entry of a manifest's `supportedOperations`: an operation, named by a non-empty string `type`. */
export interface SupportedOperationEntry extends JsonObject {
  type: string;
}

/**
 * The entries of a manifest's `supportedOperations` that name an operation, as the agent sent them (property
 * values included); anything else an agent lists there (null, a number, an object without a string `type`)
 * names nothing it could be asked to do, and is dropped. Applied where a manifest arrives and again where the
 * console reads one, for the manifests stored before it was.
 */
export const supportedOperationEntriesOf = (entries: unknown): SupportedOperationEntry[] =>
  asArray(entries).filter(
    (entry): entry is SupportedOperationEntry =>
      typeof asObject(entry)?.type === "string" && (entry as SupportedOperationEntry).type !== "",
  );

/** Reads a manifest's `supportedOperations` list (`[{type, properties: {<operand>: …}}]`). */
export function supportedOperationsOf(entries: unknown): SupportedOperations {
  const supported: SupportedOperations = {};
  for (const entry of supportedOperationEntriesOf(entries)) {
    const operation = entry.type.toUpperCase();
    const operands = Object.keys(asObject(entry.properties) ?? {}).map((operand) => operand.toUpperCase());
    supported[operation] = [...new Set([...(supported[operation] ?? []), ...operands])].sort();
  }
  return supported;
}

export function supports(supported: SupportedOperations, operation: string, operand?: string): boolean {
  const operands = supported[operation.toUpperCase()];
  if (!operands) return false;
  // An operation listed without properties takes no operand; one with properties names each operand it takes.
  return operand === undefined || operand === "" ? true : operands.includes(operand.toUpperCase());
}

export interface ManifestSummary {
  agentType?: string;
  version?: string;
  bundleCount: number;
  processorTypes: number;
  controllerServiceTypes: number;
}

export function summarizeManifest(manifest: Record<string, unknown>): ManifestSummary {
  const componentManifests = asArray(manifest.bundles).map((bundle) =>
    asObject(asObject(bundle)?.componentManifest),
  );
  const countOf = (kind: string) =>
    componentManifests.reduce((total, component) => total + asArray(component?.[kind]).length, 0);
  return {
    agentType: asString(manifest.agentType),
    version: asString(manifest.version) ?? asString(asObject(manifest.buildInfo)?.version),
    bundleCount: componentManifests.length,
    processorTypes: countOf("processors"),
    controllerServiceTypes: countOf("controllerServices"),
  };
}

import { asArray, asObject, asString } from "../json.js";

/**
 * What an agent can be asked to do: upper-case operation → upper-case operands ("" when the
 * operation takes none). Java writes these upper-case, C++ lower-case; comparisons ignore case.
 */
export type SupportedOperations = Record<string, string[]>;

/** Reads a manifest's `supportedOperations` list (`[{type, properties: {<operand>: …}}]`). */
export function supportedOperationsOf(entries: unknown): SupportedOperations {
  const supported: SupportedOperations = {};
  for (const entry of asArray(entries)) {
    const operation = asString(asObject(entry)?.type)?.toUpperCase();
    if (!operation) continue;
    const operands = Object.keys(asObject(asObject(entry)?.properties) ?? {}).map((operand) =>
      operand.toUpperCase(),
    );
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

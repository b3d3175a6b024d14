/** Component types a manifest offers, as `detailOf` reads them. */
export interface ManifestTypes {
  processorTypes: string[];
  controllerServiceTypes: string[];
}

export interface MissingTypes {
  processorTypes: string[];
  controllerServiceTypes: string[];
}

export const lastSegment = (type: string): string => type.slice(type.lastIndexOf(".") + 1);

/**
 * Whether a manifest offers a type the flow names. Java flows and manifests use fully qualified class
 * names; C++ manifests list `org.apache.nifi.minifi.processors.GenerateFlowFile` while C++ flows may name
 * just `GenerateFlowFile`, so a name without a package matches the last segment of an offered type.
 */
function offers(offered: string[]): (type: string) => boolean {
  const exact = new Set(offered);
  const short = new Set(offered.map(lastSegment));
  return (type) => exact.has(type) || (!type.includes(".") && short.has(type));
}

/** The flow's types a manifest lacks; both lists empty when its agents can run the flow. */
export function missingTypes(flow: ManifestTypes, manifest: ManifestTypes): MissingTypes {
  const processor = offers(manifest.processorTypes);
  const service = offers(manifest.controllerServiceTypes);
  return {
    processorTypes: flow.processorTypes.filter((type) => !processor(type)),
    controllerServiceTypes: flow.controllerServiceTypes.filter((type) => !service(type)),
  };
}

export const isComplete = (missing: MissingTypes): boolean =>
  missing.processorTypes.length === 0 && missing.controllerServiceTypes.length === 0;

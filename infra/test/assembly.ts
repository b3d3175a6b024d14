import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Validations } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { CloudAssembly, type CloudFormationStackArtifact } from "aws-cdk-lib/cx-api";
import { inject } from "vitest";
import type { BeaconVariant } from "./variants.js";

/** One variant of Beacon as the global setup synthesized it: its cloud assembly, read from disk. */
export interface SynthesizedBeacon {
  readonly assembly: CloudAssembly;
  readonly stateful: CloudFormationStackArtifact;
  readonly stateless: CloudFormationStackArtifact;
  readonly statefulTemplate: Template;
  readonly statelessTemplate: Template;
}

/** Why the global setup could not synthesize a variant (e.g. an unacknowledged AwsSolutions finding), if it could not. */
export function synthesisErrorOf(variant: BeaconVariant): string | undefined {
  const outcome = inject("beaconAssemblies")[variant];
  return "error" in outcome ? outcome.error : undefined;
}

const loaded = new Map<BeaconVariant, SynthesizedBeacon>();

/** A variant's assembly and templates, read once per test file. Throws when the variant did not synthesize. */
export function synthesized(variant: BeaconVariant): SynthesizedBeacon {
  const known = loaded.get(variant);
  if (known !== undefined) return known;
  const outcome = inject("beaconAssemblies")[variant];
  if ("error" in outcome) throw new Error(`Beacon's ${variant} variant did not synthesize: ${outcome.error}`);
  const assembly = new CloudAssembly(outcome.directory);
  const stack = (kind: "Stateful" | "Stateless") => {
    const found = assembly.stacks.find((candidate) => candidate.stackName.endsWith(`-${kind}`));
    if (found === undefined) throw new Error(`no ${kind} stack in ${outcome.directory}`);
    return found;
  };
  const [stateful, stateless] = [stack("Stateful"), stack("Stateless")];
  const beacon = {
    assembly,
    stateful,
    stateless,
    statefulTemplate: Template.fromJSON(stateful.template),
    statelessTemplate: Template.fromJSON(stateless.template),
  };
  loaded.set(variant, beacon);
  return beacon;
}

/**
 * Beacon's acknowledgements of AwsSolutions findings, from the assembly's metadata: rule, reason, and the path of
 * the construct it was made on. (CDK records acknowledgements of its own, of CloudFormation validation rules, in the
 * same metadata; those are not Beacon's.)
 */
export function nagAcknowledgementsOf(
  beacon: SynthesizedBeacon,
): { path: string; rule: string; reason: string }[] {
  return beacon.assembly.stacks.flatMap((stack) =>
    stack.findMetadataByType(Validations.ACKNOWLEDGED_RULES_METADATA_KEY).flatMap((entry) =>
      Object.entries(entry.data as unknown as Record<string, string>)
        .filter(([rule]) => rule.includes("AwsSolutions-"))
        .map(([rule, reason]) => ({
          path: entry.path.replace(/^\//, ""),
          rule: rule.replace(/^Annotation::/, ""),
          reason,
        })),
    ),
  );
}

/** The paths of the variant's CloudFormation templates. */
export const templatePathsOf = ({ assembly }: SynthesizedBeacon): string[] =>
  assembly.stacks.map((stack) => join(assembly.directory, stack.templateFile));

/**
 * The directory of a function's bundle in the cloud assembly: the asset its code points at. `logicalIdPrefix`
 * names the function as the stack does, e.g. "AgentApiFunction".
 */
/**
 * The build context of the image an ECS service's task runs (logical id starting with `servicePrefix`), as
 * synthesis staged it in the assembly: the Dockerfile and the esbuild bundle, main.mjs with its source map.
 */
export function imageDirectoryOf(beacon: SynthesizedBeacon, servicePrefix: string): string {
  const [service] = Object.entries(beacon.statelessTemplate.findResources("AWS::ECS::Service")).filter(
    ([logicalId]) => logicalId.startsWith(servicePrefix),
  );
  const taskDefinition = (service?.[1].Properties.TaskDefinition as { Ref?: string } | undefined)?.Ref;
  const task = beacon.statelessTemplate.findResources("AWS::ECS::TaskDefinition")[taskDefinition ?? ""];
  const image = JSON.stringify(task?.Properties.ContainerDefinitions[0].Image);
  const hash = /:([0-9a-f]{64})"/.exec(image)?.[1];
  if (hash === undefined)
    throw new Error(`No ECS service ${servicePrefix}* with an image built from an asset`);
  const manifest = JSON.parse(
    readFileSync(join(beacon.assembly.directory, `${beacon.stateless.id}.assets.json`), "utf8"),
  ) as { dockerImages: Record<string, { source: { directory: string } }> };
  const directory = manifest.dockerImages[hash]?.source.directory;
  if (directory === undefined) throw new Error(`No image asset ${hash} in the assembly`);
  return join(beacon.assembly.directory, directory);
}

export function bundleDirectoryOf(beacon: SynthesizedBeacon, logicalIdPrefix: string): string {
  const functions = beacon.statelessTemplate.findResources("AWS::Lambda::Function");
  const [resource] = Object.entries(functions).filter(([logicalId]) => logicalId.startsWith(logicalIdPrefix));
  const objectKey = (resource?.[1].Properties.Code as { S3Key?: string } | undefined)?.S3Key;
  if (objectKey === undefined) throw new Error(`No function ${logicalIdPrefix}* with bundled code`);
  return join(beacon.assembly.directory, `asset.${objectKey.replace(/\.zip$/, "")}`);
}

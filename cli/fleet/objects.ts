/**
 * What a fleet folder declares: `apiVersion: beacon/v1` objects, each a `kind` with `metadata` naming it and a
 * `spec` the console API takes as it is (read and checked by folder.ts).
 */
import type { Schemas } from "../../web/src/api/client.js";

export const API_VERSION = "beacon/v1";

/** Where an object was declared: the file relative to the folder, and the document's number in it. */
export interface Source {
  file: string;
  document: number;
}

export type FleetObject =
  | { kind: "Settings"; source: Source; spec: Schemas["TenantSettingsChange"] }
  | { kind: "Class"; source: Source; name: string; spec: Schemas["AgentClassChange"] }
  | { kind: "Group"; source: Source; name: string; spec: Schemas["GroupDefinition"] }
  | ParameterObject
  | {
      kind: "FlowVersion";
      source: Source;
      className: string;
      /** The flow file, relative to the folder. */
      file: string;
      content: Buffer;
      contentType: string;
      /** SHA-256 of the file's bytes: the version's identity, as the API computes it. */
      hash: string;
      label?: string;
    }
  | AssetObject
  | {
      kind: "ClassResources";
      source: Source;
      className: string;
      spec: Schemas["ResourceSetRequest"];
      /** The files among its items, each an asset to upload when the tenant has none of its bytes. */
      assets: AssetObject[];
    }
  | { kind: "Webhook"; source: Source; spec: Schemas["SubscriptionRequest"] };

/** The kinds of a parameter's value, each set at a layer: a class, a group or an agent. */
export type ParameterKind = "ClassParameter" | "GroupParameter" | "AgentParameter";

/** A parameter's value, set at a class, a group or an agent. */
export interface ParameterObject {
  kind: ParameterKind;
  source: Source;
  /** The class, the group or the agent the value is set at. */
  owner: string;
  name: string;
  spec: Schemas["ParameterValueRequest"];
}

/** A file a ClassResources object names: an asset, uploaded when the tenant has none of its bytes. */
export interface AssetObject {
  kind: "Asset";
  source: Source;
  /** The file, relative to the folder; `location` is where it is read from. */
  file: string;
  location: string;
  /** The name agents keep it under: the file's own. */
  name: string;
  sizeBytes: number;
  /** SHA-256 of the file's bytes: the asset's id. */
  sha256: string;
}

export type Kind = FleetObject["kind"];
/** Every kind, in the order the plan lists and apply makes them: what an object needs comes before it. */
export const KINDS: readonly Kind[] = [
  "Settings",
  "Class",
  "Group",
  "ClassParameter",
  "GroupParameter",
  "AgentParameter",
  "FlowVersion",
  "Asset",
  "ClassResources",
  "Webhook",
];
/** The kinds a folder declares: an Asset is named by the ClassResources holding it, not declared. */
export const DECLARED_KINDS: readonly Kind[] = KINDS.filter((kind) => kind !== "Asset");

/** A folder that cannot be applied: the file, the object and the field, in `message`. */
export class FolderError extends Error {}

/** How an object is named in the plan and in errors, unique among a folder's objects of its kind. */
export function objectName(object: FleetObject): string {
  switch (object.kind) {
    case "Settings":
      return "tenant";
    case "Class":
    case "Group":
      return object.name;
    case "ClassParameter":
    case "GroupParameter":
    case "AgentParameter":
      return `${object.owner}/${object.name}`;
    case "FlowVersion":
      return `${object.className}/${object.file}`;
    case "Asset":
      return object.file;
    case "ClassResources":
      return object.className;
    case "Webhook":
      return webhookName(object.spec);
  }
}

export function webhookName(spec: { url: string; agentClass?: string; eventTypes: string[] }): string {
  return `${spec.url} [${[...new Set(spec.eventTypes)].sort().join(",")}]${spec.agentClass ? ` of ${spec.agentClass}` : ""}`;
}

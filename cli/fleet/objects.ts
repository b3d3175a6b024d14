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
  | {
      kind: "ClassParameter" | "GroupParameter";
      source: Source;
      /** The class or the group the value is set at. */
      owner: string;
      name: string;
      spec: Schemas["ParameterValueRequest"];
    }
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
  | { kind: "Webhook"; source: Source; spec: Schemas["SubscriptionRequest"] };

export type Kind = FleetObject["kind"];
export const KINDS: readonly Kind[] = [
  "Settings",
  "Class",
  "Group",
  "ClassParameter",
  "GroupParameter",
  "FlowVersion",
  "Webhook",
];

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
      return `${object.owner}/${object.name}`;
    case "FlowVersion":
      return `${object.className}/${object.file}`;
    case "Webhook":
      return webhookName(object.spec);
  }
}

export function webhookName(spec: { url: string; agentClass?: string; eventTypes: string[] }): string {
  return `${spec.url} [${[...new Set(spec.eventTypes)].sort().join(",")}]${spec.agentClass ? ` of ${spec.agentClass}` : ""}`;
}

import { createHash } from "node:crypto";
import { parse as parseYaml } from "yaml";
import { assetReferencesIn } from "../assets/model.js";
import { BeaconError } from "../errors.js";
import { asArray, asObject, asString, type JsonObject } from "../json.js";

/**
 * The flow layouts agents take. `nifi-json`: the NiFi flow layout with a `rootGroup` (MiNiFi Java 2.x
 * `flow.json`, and the C++ agent's JSON flow configuration in the same layout). `minifi-json` and
 * `minifi-yaml`: the C++ agent's own configuration layout (`Flow Controller`, `Processors`, …).
 */
const FlowFormats = ["nifi-json", "minifi-json", "minifi-yaml"] as const;
export type FlowFormat = (typeof FlowFormats)[number];

export type FlowContentType = "application/json" | "application/yaml";

export interface FlowDocument {
  /** Lower-case hex SHA-256 of the bytes as uploaded: the version's address and the flow id agents get. */
  hash: string;
  format: FlowFormat;
  contentType: FlowContentType;
  sizeBytes: number;
  processorTypes: string[];
  controllerServiceTypes: string[];
  /**
   * The assets the flow names (`@{asset-id:<id>}`): agents must hold them before they apply it, so an
   * UPDATE CONFIGURATION of it waits for the SYNC RESOURCE that brings them. Absent on versions stored
   * before Beacon read them, which name none it knows of.
   */
  assetIds?: string[];
}

/** Deepest process-group nesting Beacon walks; real flows nest a handful of levels. */
const MAX_GROUP_DEPTH = 64;
/** YAML aliases a document may expand: enough for real configurations, too few for an alias bomb. */
const MAX_YAML_ALIASES = 100;

const invalid = (message: string) => new BeaconError("invalid_request", message);

/** The component types of one group layout, read without recursion so no nesting can exhaust the stack. */
function typesOf(
  root: JsonObject,
  keys: { processors: string; services: string; groups: string; type: readonly string[] },
): { processorTypes: string[]; controllerServiceTypes: string[] } {
  const processorTypes = new Set<string>();
  const controllerServiceTypes = new Set<string>();
  const collect = (into: Set<string>, components: unknown) => {
    for (const component of asArray(components)) {
      const object = asObject(component);
      const type = keys.type.map((key) => asString(object?.[key])).find((value) => value !== undefined);
      if (type !== undefined) into.add(type.trim());
    }
  };
  const pending: { group: JsonObject; depth: number }[] = [{ group: root, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.depth > MAX_GROUP_DEPTH)
      throw invalid(`The flow nests process groups deeper than ${MAX_GROUP_DEPTH} levels`);
    collect(processorTypes, next.group[keys.processors]);
    collect(controllerServiceTypes, next.group[keys.services]);
    for (const child of asArray(next.group[keys.groups])) {
      const group = asObject(child);
      if (group) pending.push({ group, depth: next.depth + 1 });
    }
  }
  return {
    processorTypes: [...processorTypes].sort(),
    controllerServiceTypes: [...controllerServiceTypes].sort(),
  };
}

function nifiLayoutTypes(document: JsonObject, rootGroup: JsonObject) {
  const keys = {
    processors: "processors",
    services: "controllerServices",
    groups: "processGroups",
    type: ["type"],
  } as const;
  const inGroups = typesOf(rootGroup, keys);
  // Services defined at the controller level sit beside the root group.
  const controllerLevel = typesOf({ controllerServices: document.controllerServices }, keys);
  return {
    processorTypes: inGroups.processorTypes,
    controllerServiceTypes: [
      ...new Set([...inGroups.controllerServiceTypes, ...controllerLevel.controllerServiceTypes]),
    ].sort(),
  };
}

const minifiLayoutTypes = (document: JsonObject) =>
  typesOf(document, {
    processors: "Processors",
    services: "Controller Services",
    groups: "Process Groups",
    // The C++ configuration names a component's type `class`; newer ones also accept `type`.
    type: ["class", "type"],
  });

function parseText(text: string): { value: unknown; syntax: "json" | "yaml" } {
  if (text.trimStart().startsWith("{")) {
    try {
      return { value: JSON.parse(text), syntax: "json" };
    } catch (error) {
      throw invalid(`The flow is not valid JSON: ${(error as Error).message}`);
    }
  }
  try {
    return { value: parseYaml(text, { maxAliasCount: MAX_YAML_ALIASES }), syntax: "yaml" };
  } catch (error) {
    // A nesting deep enough to exhaust the parser's stack lands here too.
    throw invalid(`The flow is neither JSON nor valid YAML: ${(error as Error).message}`);
  }
}

/**
 * Reads an uploaded flow: checks it is UTF-8 text of at most `maxBytes`, that it parses as JSON or
 * YAML, and that it has one of the layouts agents take; names its format and component types.
 */
export function readFlowDocument(bytes: Uint8Array, maxBytes: number): FlowDocument {
  if (bytes.length === 0) throw invalid("The request needs a flow document as its body");
  if (bytes.length > maxBytes)
    throw new BeaconError("payload_too_large", `The flow is larger than ${maxBytes} bytes`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalid("The flow is not UTF-8 text");
  }
  const { value, syntax } = parseText(text);
  const document = asObject(value);
  if (!document) throw invalid("The flow must be a JSON or YAML object");
  const rootGroup = asObject(document.rootGroup);
  let format: FlowFormat;
  let types: { processorTypes: string[]; controllerServiceTypes: string[] };
  if (rootGroup && syntax === "json") {
    format = "nifi-json";
    types = nifiLayoutTypes(document, rootGroup);
  } else if (asObject(document["Flow Controller"])) {
    format = syntax === "json" ? "minifi-json" : "minifi-yaml";
    types = minifiLayoutTypes(document);
  } else {
    throw invalid(
      "The flow has neither a rootGroup (flow.json layout) nor a Flow Controller (MiNiFi C++ configuration layout)",
    );
  }
  return {
    hash: createHash("sha256").update(bytes).digest("hex"),
    format,
    contentType: syntax === "json" ? "application/json" : "application/yaml",
    sizeBytes: bytes.length,
    ...types,
    assetIds: assetReferencesIn(text),
  };
}

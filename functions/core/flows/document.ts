import { createHash } from "node:crypto";
import { assetReferencesIn } from "../assets/model.js";
import { BeaconError } from "../errors.js";
import { asArray, asObject, type JsonObject } from "../json.js";
import {
  componentTypeOf,
  type FlowFormat,
  forEachGroup,
  type GroupLayout,
  minifiLayout,
  nifiLayout,
  rootGroupOf,
} from "./layout.js";
import {
  type FlowParameter,
  type ParameterReference,
  readFlowParameters,
  referenceSite,
  valueSlotsOf,
} from "./parameters.js";
import type { ValueSlot } from "./rendering.js";
import { yamlLibrary } from "./yaml.js";

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
  /**
   * The parameters the flow's contexts declare, which agents get their values for. Absent on versions
   * stored before Beacon read them.
   */
  parameters?: FlowParameter[];
  /** Where each declared parameter's value goes in the text, for rendering it per agent; absent with none. */
  parameterSlots?: ValueSlot[];
}

/** YAML aliases a document may expand: enough for real configurations, too few for an alias bomb. */
const MAX_YAML_ALIASES = 100;

const invalid = (message: string) => new BeaconError("invalid_request", message);

interface ComponentTypes {
  processorTypes: string[];
  controllerServiceTypes: string[];
}

/** The processor and controller service types of a group and every group nested in it. */
function typesOf(root: JsonObject, layout: GroupLayout): ComponentTypes {
  const processorTypes = new Set<string>();
  const controllerServiceTypes = new Set<string>();
  const collect = (into: Set<string>, components: unknown) => {
    for (const component of asArray(components)) {
      const object = asObject(component);
      const type = object && componentTypeOf(object, layout);
      if (type !== undefined) into.add(type);
    }
  };
  forEachGroup(root, layout, (group) => {
    collect(processorTypes, group[layout.processors]);
    collect(controllerServiceTypes, group[layout.services]);
  });
  return {
    processorTypes: [...processorTypes].sort(),
    controllerServiceTypes: [...controllerServiceTypes].sort(),
  };
}

function nifiLayoutTypes(document: JsonObject, rootGroup: JsonObject): ComponentTypes {
  const inGroups = typesOf(rootGroup, nifiLayout);
  // Services defined at the controller level sit beside the root group.
  const controllerLevel = typesOf({ controllerServices: document.controllerServices }, nifiLayout);
  return {
    processorTypes: inGroups.processorTypes,
    controllerServiceTypes: [
      ...new Set([...inGroups.controllerServiceTypes, ...controllerLevel.controllerServiceTypes]),
    ].sort(),
  };
}

async function parseText(text: string): Promise<{ value: unknown; syntax: "json" | "yaml" }> {
  if (text.trimStart().startsWith("{")) {
    try {
      return { value: JSON.parse(text), syntax: "json" };
    } catch (error) {
      throw invalid(`The flow is not valid JSON: ${(error as Error).message}`);
    }
  }
  const { parse } = await yamlLibrary();
  try {
    return { value: parse(text, { maxAliasCount: MAX_YAML_ALIASES }), syntax: "yaml" };
  } catch (error) {
    // A nesting deep enough to exhaust the parser's stack lands here too.
    throw invalid(`The flow is neither JSON nor valid YAML: ${(error as Error).message}`);
  }
}

/** A flow document parsed, with the layout it has. */
export interface ParsedFlow {
  document: JsonObject;
  format: FlowFormat;
  syntax: "json" | "yaml";
  text: string;
}

/**
 * Parses a flow: checks it is UTF-8 text of at most `maxBytes`, that it parses as JSON or YAML, and that it
 * has one of the layouts agents take.
 */
export async function parseFlow(bytes: Uint8Array, maxBytes: number): Promise<ParsedFlow> {
  if (bytes.length === 0) throw invalid("The request needs a flow document as its body");
  if (bytes.length > maxBytes)
    throw new BeaconError("payload_too_large", `The flow is larger than ${maxBytes} bytes`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalid("The flow is not UTF-8 text");
  }
  const { value, syntax } = await parseText(text);
  const document = asObject(value);
  if (!document) throw invalid("The flow must be a JSON or YAML object");
  if (asObject(document.rootGroup) && syntax === "json")
    return { document, format: "nifi-json", syntax, text };
  if (asObject(document["Flow Controller"]))
    return { document, format: syntax === "json" ? "minifi-json" : "minifi-yaml", syntax, text };
  throw invalid(
    "The flow has neither a rootGroup (flow.json layout) nor a Flow Controller (MiNiFi C++ configuration layout)",
  );
}

/** Undeclared references a refusal lists; the message names the first few. */
const MAX_LISTED_REFERENCES = 100;
const REFERENCES_IN_MESSAGE = 5;
/** Bound on a version's declared parameters as stored, well inside what one table item holds. */
const MAX_DECLARED_PARAMETERS_BYTES = 100 * 1024;

const whereReferenced = (reference: ParameterReference) =>
  `#{${reference.parameter}} in ${reference.component} "${reference.componentName}" property "${reference.property}"`;

/** An agent cannot run a property whose parameter its group's context does not declare: refused at publish. */
function refuseUndeclared(undeclared: ParameterReference[]): void {
  if (undeclared.length === 0) return;
  const named = undeclared.slice(0, REFERENCES_IN_MESSAGE).map(whereReferenced).join("; ");
  const more =
    undeclared.length > REFERENCES_IN_MESSAGE ? ` and ${undeclared.length - REFERENCES_IN_MESSAGE} more` : "";
  throw new BeaconError(
    "invalid_request",
    `The flow references parameters that no parameter context of their process group declares: ${named}${more}`,
    {
      undeclaredParameters: undeclared.slice(0, MAX_LISTED_REFERENCES).map(referenceSite),
      undeclaredCount: undeclared.length,
    },
  );
}

/**
 * Reads an uploaded flow (parseFlow): names its format, component types and declared parameters, and
 * refuses one whose properties reference a parameter their process group's context does not declare.
 */
export async function readFlowDocument(bytes: Uint8Array, maxBytes: number): Promise<FlowDocument> {
  const { document, format, syntax, text } = await parseFlow(bytes, maxBytes);
  const types =
    format === "nifi-json"
      ? nifiLayoutTypes(document, rootGroupOf(document, format))
      : typesOf(document, minifiLayout);
  const parameters = readFlowParameters(document, format);
  refuseUndeclared(parameters.undeclared);
  const parameterSlots = parameters.declared.length > 0 ? await valueSlotsOf(text, format) : undefined;
  if (JSON.stringify([parameters.declared, parameterSlots]).length > MAX_DECLARED_PARAMETERS_BYTES)
    throw invalid(`The flow's declared parameters take more than ${MAX_DECLARED_PARAMETERS_BYTES} bytes`);
  return {
    hash: createHash("sha256").update(bytes).digest("hex"),
    format,
    contentType: syntax === "json" ? "application/json" : "application/yaml",
    sizeBytes: bytes.length,
    ...types,
    assetIds: assetReferencesIn(text),
    parameters: parameters.declared,
    parameterSlots,
  };
}

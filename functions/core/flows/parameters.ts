import type { Node, YAMLMap } from "yaml";
import { BeaconError } from "../errors.js";
import { asArray, asBoolean, asObject, asString, dropUndefined, type JsonObject } from "../json.js";
import {
  componentTypeOf,
  type FlowFormat,
  forEachGroup,
  type GroupLayout,
  layoutOf,
  rootGroupOf,
} from "./layout.js";
import type { ValueSlot } from "./rendering.js";
import { yamlLibrary } from "./yaml.js";

/** A parameter a flow declares in one of its parameter contexts. */
export interface FlowParameter {
  name: string;
  sensitive: boolean;
  description?: string;
  /** The flow's own value, when not sensitive. */
  default?: string;
}

export type ParameterComponent = "processor" | "controller service";

/** A property of a processor or controller service that names a parameter (`#{name}`). */
export interface ParameterReference {
  parameter: string;
  component: ParameterComponent;
  /** The component's name, or its id when it has none. */
  componentName: string;
  componentType: string;
  property: string;
  /** The property's value as the flow has it, references and escapes included. */
  value: string;
}

/** Where a reference sits, without the property's value (which may hold what is not the flow's to show). */
export const referenceSite = ({ parameter, component, componentName, property }: ParameterReference) => ({
  parameter,
  component,
  componentName,
  property,
});

export interface FlowParameterReading {
  /** Each parameter the flow's contexts declare, by name. */
  declared: FlowParameter[];
  references: ParameterReference[];
  /** The references whose process group's context (with those it inherits) does not declare the parameter. */
  undeclared: ParameterReference[];
}

type PropertyPart = { text: string } | { parameter: string };

/**
 * A run of `#` right before `{…}` is a parameter reference when the run is odd and an escaped literal when it
 * is even; either way half the run's other `#` stay as literal text (`##{x}` is the text `#{x}`, `###{x}` is
 * `#` and the value of x). Both agents read property values so.
 */
const REFERENCE = /(#+)\{([^}]*)\}/g;

function partsOf(value: string): PropertyPart[] {
  const parts: PropertyPart[] = [];
  let text = "";
  let last = 0;
  for (const match of value.matchAll(REFERENCE)) {
    const [whole, hashes = "", name = ""] = match;
    const escaped = hashes.length % 2 === 0;
    text += value.slice(last, match.index) + "#".repeat(Math.floor(hashes.length / 2));
    last = match.index + whole.length;
    if (escaped) {
      text += `{${name}}`;
      continue;
    }
    parts.push({ text }, { parameter: name });
    text = "";
  }
  parts.push({ text: text + value.slice(last) });
  return parts;
}

/** The parameters a property value references, in order, escapes left out. */
export const referencedParameters = (value: string): string[] =>
  partsOf(value).flatMap((part) => ("parameter" in part ? [part.parameter] : []));

/**
 * The property's value as an agent would run it with the parameters' values; undefined when a parameter it
 * references has no value to put in.
 */
export function resolveParameters(
  value: string,
  valueOfParameter: (parameter: string) => string | undefined,
): string | undefined {
  let resolved = "";
  for (const part of partsOf(value)) {
    const text = "parameter" in part ? valueOfParameter(part.parameter) : part.text;
    if (text === undefined) return undefined;
    resolved += text;
  }
  return resolved;
}

/** A parameter's value as the flow writes it: YAML may write numbers and booleans bare. */
function valueText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** A property's values: C++ configurations may give one property several, each under `value`. */
function propertyValues(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return asArray(value).flatMap((entry) => {
    const text = typeof entry === "string" ? entry : asString(asObject(entry)?.value);
    return text === undefined ? [] : [text];
  });
}

interface ParameterContext {
  declares: Set<string>;
  inherits: string[];
}

function contextsOf(document: JsonObject, layout: GroupLayout): Map<string, ParameterContext> {
  const contexts = new Map<string, ParameterContext>();
  for (const entry of asArray(document[layout.parameterContexts])) {
    const context = asObject(entry);
    const name = asString(context?.name);
    if (!context || name === undefined) continue;
    contexts.set(name, {
      declares: new Set(
        asArray(context[layout.parameters]).flatMap((parameter) => {
          const parameterName = asString(asObject(parameter)?.name);
          return parameterName === undefined ? [] : [parameterName];
        }),
      ),
      inherits: asArray(context[layout.inheritedParameterContexts]).flatMap((inherited) => {
        const inheritedName = asString(inherited);
        return inheritedName === undefined ? [] : [inheritedName];
      }),
    });
  }
  return contexts;
}

/** The names a context declares, its own and those of the contexts it inherits, however deep. */
function namesIn(contexts: Map<string, ParameterContext>, contextName: string | undefined): Set<string> {
  const names = new Set<string>();
  const seen = new Set<string>();
  const pending = contextName === undefined ? [] : [contextName];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const context = contexts.get(next);
    if (seen.has(next) || !context) continue;
    seen.add(next);
    for (const name of context.declares) names.add(name);
    pending.push(...context.inherits);
  }
  return names;
}

/**
 * Each name once, from its first declaration in the document; sensitive when any context declares it so,
 * and then without the flow's value.
 */
function declaredParameters(document: JsonObject, layout: GroupLayout): FlowParameter[] {
  const byName = new Map<string, FlowParameter>();
  for (const context of asArray(document[layout.parameterContexts])) {
    for (const entry of asArray(asObject(context)?.[layout.parameters])) {
      const parameter = asObject(entry);
      const name = asString(parameter?.name);
      if (!parameter || name === undefined) continue;
      const sensitive = (asBoolean(parameter.sensitive) ?? false) || byName.get(name)?.sensitive === true;
      const first = byName.get(name) ?? {
        name,
        description: asString(parameter.description),
        default: valueText(parameter.value),
      };
      byName.set(
        name,
        dropUndefined({ ...first, sensitive, default: sensitive ? undefined : first.default }),
      );
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * What a flow declares of parameters and where its processors and controller services reference them. A
 * process group reaches only the context it names (`parameterContextName`, `Parameter Context Name`), not its
 * parent's; services at the NiFi layout's controller level reach none.
 */
export function readFlowParameters(document: JsonObject, format: FlowFormat): FlowParameterReading {
  const layout = layoutOf(format);
  const contexts = contextsOf(document, layout);
  const references: ParameterReference[] = [];
  const undeclared: ParameterReference[] = [];
  const visit = (group: JsonObject) => {
    const declared = namesIn(contexts, asString(group[layout.parameterContextName]));
    const components: [ParameterComponent, unknown][] = [
      ["processor", group[layout.processors]],
      ["controller service", group[layout.services]],
    ];
    for (const [component, list] of components) {
      for (const entry of asArray(list)) {
        const object = asObject(entry);
        if (!object) continue;
        const componentName =
          asString(object.name) ?? asString(object.identifier) ?? asString(object.id) ?? "(unnamed)";
        const componentType = componentTypeOf(object, layout) ?? "";
        for (const [property, value] of Object.entries(asObject(object[layout.properties]) ?? {})) {
          for (const text of propertyValues(value)) {
            for (const parameter of referencedParameters(text)) {
              const reference = { parameter, component, componentName, componentType, property, value: text };
              references.push(reference);
              if (!declared.has(parameter)) undeclared.push(reference);
            }
          }
        }
      }
    }
  };
  forEachGroup(rootGroupOf(document, format), layout, visit);
  if (format === "nifi-json") visit({ [layout.services]: document[layout.services] });
  return { declared: declaredParameters(document, layout), references, undeclared };
}

function replacedValue(parameter: string, text: string, [start, end]: [number, number, number]): ValueSlot {
  // A block scalar's range takes in the line break after it, which stays.
  return { parameter, at: start, end: start + text.slice(start, end).trimEnd().length };
}

/** Where a parameter map without a `value` gets one, keeping the map's own style. */
function insertedValue(parameter: string, text: string, map: YAMLMap): ValueSlot | undefined {
  const [start, end] = map.range ?? [];
  if (start === undefined || end === undefined) return undefined;
  if (map.flow) {
    const close = text.lastIndexOf("}", end);
    return { parameter, at: close, end: close, before: `, "value": ` };
  }
  // A block map: the value goes first, on its own line at the indentation of the map's keys.
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  return { parameter, at: start, end: start, before: "value: ", after: `\n${" ".repeat(start - lineStart)}` };
}

/**
 * Where each declared parameter's value goes in the flow's text, in every context that declares it: read once,
 * when the version is published, so that rendering it for an agent (rendering.ts) reads no document.
 */
export async function valueSlotsOf(text: string, format: FlowFormat): Promise<ValueSlot[]> {
  // JSON is YAML too: one parser gives both the source ranges the values are spliced into.
  const { isMap, isSeq, parseDocument } = await yamlLibrary();
  const document = parseDocument(text, { uniqueKeys: false });
  if (document.errors.length > 0)
    throw new BeaconError("invalid_request", `The flow cannot be rendered: ${document.errors[0]?.message}`);
  const layout = layoutOf(format);
  const slots: ValueSlot[] = [];
  const contexts = document.get(layout.parameterContexts, true);
  for (const context of isSeq(contexts) ? contexts.items : []) {
    const parameters = isMap(context) ? context.get(layout.parameters, true) : undefined;
    for (const parameter of isSeq(parameters) ? parameters.items : []) {
      if (!isMap(parameter)) continue;
      const name = parameter.get("name");
      if (typeof name !== "string") continue;
      const current = parameter.get("value", true) as Node | undefined;
      const slot = current?.range
        ? replacedValue(name, text, current.range)
        : insertedValue(name, text, parameter);
      if (!slot) throw new BeaconError("invalid_request", `The flow's parameter ${name} cannot be rendered`);
      slots.push(slot);
    }
  }
  return slots;
}

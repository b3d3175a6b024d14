/**
 * Reading a fleet folder: the YAML files directly in it (flow files may sit in its subfolders). Every file is
 * read and every object checked (its spec by the API's own compiled validators) before anything is asked of
 * the API: a broken folder changes nothing.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ValidateFunction } from "ajv";
import { parseAllDocuments } from "yaml";
import * as documents from "../../functions/shared/compiled-console-documents.js";
import * as parameters from "../../functions/shared/compiled-console-parameters.js";
import { describeFailure } from "../../functions/shared/console-openapi.js";
import type { Schemas } from "../../web/src/api/client.js";
import { flowContentType } from "../../web/src/flow-file.js";
import {
  API_VERSION,
  type FleetObject,
  FolderError,
  KINDS,
  type Kind,
  objectName,
  type Source,
} from "./objects.js";

/** Every object of every `.yaml`/`.yml` file under `folder`, checked; a FolderError for the first fault. */
export function readFleetFolder(folder: string): FleetObject[] {
  let files: string[];
  try {
    files = readdirSync(folder, { encoding: "utf8" })
      .filter((file) => /\.ya?ml$/i.test(file))
      .sort();
  } catch (error) {
    throw new FolderError(`Cannot read the folder ${folder}: ${(error as NodeJS.ErrnoException).code}`);
  }
  if (files.length === 0) throw new FolderError(`No .yaml or .yml file in ${folder}`);
  const objects = files.flatMap((file) =>
    parseFleetFile(file, readFileSync(path.join(folder, file), "utf8"), (relative) => {
      const target = path.join(path.dirname(file), relative);
      try {
        return { file: target, content: readFileSync(path.join(folder, target)) };
      } catch (error) {
        throw new Error(`cannot read ${target}: ${(error as NodeJS.ErrnoException).code}`);
      }
    }),
  );
  assertUnique(objects);
  return objects;
}

/** A flow file named by an object, relative to the YAML file naming it: its path from the folder and bytes. */
export type FlowReader = (relative: string) => { file: string; content: Buffer };

/** The objects of one YAML file (`file` as named in errors), checked. */
export function parseFleetFile(file: string, text: string, readFlow: FlowReader): FleetObject[] {
  const parsed = parseAllDocuments(text);
  if (!Array.isArray(parsed)) return [];
  const objects: FleetObject[] = [];
  parsed.forEach((document, index) => {
    const source = { file, document: index + 1 };
    const [error] = document.errors;
    if (error) {
      const line = error.linePos?.[0];
      throw new FolderError(
        `${file}${line ? `:${line.line}` : ""}: not YAML: ${error.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "")}`,
      );
    }
    const value = document.toJS();
    if (value === null || value === undefined) return;
    objects.push(fleetObject(source, value, readFlow));
  });
  return objects;
}

function fleetObject(source: Source, value: unknown, readFlow: FlowReader): FleetObject {
  const where = (what: string) => `${source.file} (document ${source.document}${what})`;
  const fail = (what: string, message: string): never => {
    throw new FolderError(`${where(what)}: ${message}`);
  };
  if (!isRecord(value)) return fail("", "expected an object with apiVersion, kind, metadata and spec");
  const extra = Object.keys(value).filter((key) => !["apiVersion", "kind", "metadata", "spec"].includes(key));
  if (extra.length > 0) fail("", `unknown field ${extra[0]} (apiVersion, kind, metadata, spec)`);
  if (value.apiVersion !== API_VERSION)
    fail("", `apiVersion must be ${API_VERSION}, not ${JSON.stringify(value.apiVersion)}`);
  const kind = value.kind;
  if (typeof kind !== "string" || !KINDS.includes(kind as Kind))
    fail("", `kind must be one of ${KINDS.join(", ")}, not ${JSON.stringify(kind)}`);
  const metadata = value.metadata ?? {};
  if (!isRecord(metadata)) return fail(`, ${kind}`, "metadata must be an object");
  const spec = value.spec ?? {};

  /** A metadata field the API takes as a path parameter, checked by that parameter's own validator. */
  const name = (field: string, validator: ValidateFunction, pathKey: string, other = {}): string => {
    const text = metadata[field];
    if (typeof text !== "string") return fail(`, ${kind}`, `metadata.${field} is required (text)`);
    const input = { path: { ...other, [pathKey]: text }, query: {} };
    if (!validator(input))
      fail(
        `, ${kind} ${text}`,
        describeFailure("", validator.errors, input).replace(/^path parameter \w+/, `metadata.${field}`),
      );
    return text;
  };
  const only = (...fields: string[]) => {
    const unknown = Object.keys(metadata).find((key) => !fields.includes(key));
    if (unknown !== undefined)
      fail(`, ${kind}`, `unknown field metadata.${unknown}${fields.length ? ` (${fields.join(", ")})` : ""}`);
  };
  /** The spec, checked by the validator of the API request that sends it. */
  const checked = <T>(label: string, validator: ValidateFunction, body: unknown = spec): T => {
    if (!validator(body))
      fail(`, ${kind}${label ? ` ${label}` : ""}`, describeFailure("spec", validator.errors, body));
    return body as T;
  };

  switch (kind as Kind) {
    case "Settings":
      only();
      return { kind: "Settings", source, spec: checked("tenant", documents.putSettingsBody) };
    case "Class": {
      only("name");
      const className = name("name", parameters.putClassInput, "className");
      return { kind: "Class", source, name: className, spec: checked(className, documents.putClassBody) };
    }
    case "Group": {
      only("name");
      const groupName = name("name", parameters.putGroupInput, "groupName");
      return { kind: "Group", source, name: groupName, spec: checked(groupName, documents.putGroupBody) };
    }
    case "ClassParameter": {
      only("class", "name");
      const owner = name("class", parameters.putClassParameterInput, "className", { name: "x" });
      const parameter = name("name", parameters.putClassParameterInput, "name", { className: owner });
      const label = `${owner}/${parameter}`;
      const body = checked<Schemas["ParameterValueRequest"]>(label, documents.putClassParameterBody);
      return { kind: "ClassParameter", source, owner, name: parameter, spec: body };
    }
    case "GroupParameter": {
      only("group", "name");
      const owner = name("group", parameters.putGroupParameterInput, "groupName", { name: "x" });
      const parameter = name("name", parameters.putGroupParameterInput, "name", { groupName: owner });
      const label = `${owner}/${parameter}`;
      const body = checked<Schemas["ParameterValueRequest"]>(label, documents.putGroupParameterBody);
      return { kind: "GroupParameter", source, owner, name: parameter, spec: body };
    }
    case "FlowVersion": {
      only("class");
      const className = name("class", parameters.uploadFlowInput, "className");
      if (!isRecord(spec)) return fail(`, FlowVersion of ${className}`, "spec must be an object");
      const unknown = Object.keys(spec).find((key) => !["file", "label"].includes(key));
      if (unknown !== undefined)
        fail(`, FlowVersion of ${className}`, `unknown field spec.${unknown} (file, label)`);
      if (typeof spec.file !== "string" || spec.file === "")
        return fail(
          `, FlowVersion of ${className}`,
          "spec.file is required: the flow file, relative to this one",
        );
      const label = `${className}/${spec.file}`;
      if (spec.label !== undefined) checked(label, documents.labelFlowBody, { label: spec.label });
      let flow: { file: string; content: Buffer };
      try {
        flow = readFlow(spec.file);
      } catch (error) {
        return fail(`, FlowVersion ${label}`, `spec.file: ${(error as Error).message}`);
      }
      if (flow.content.length === 0) fail(`, FlowVersion ${label}`, `spec.file: ${flow.file} is empty`);
      return {
        kind: "FlowVersion",
        source,
        className,
        file: flow.file,
        content: flow.content,
        contentType: flowContentType(flow.file),
        hash: createHash("sha256").update(flow.content).digest("hex"),
        ...(spec.label === undefined ? {} : { label: spec.label as string }),
      };
    }
    case "Webhook": {
      only();
      const url = isRecord(spec) && typeof spec.url === "string" ? spec.url : "";
      const body = checked<Schemas["SubscriptionRequest"]>(url, documents.createSubscriptionBody);
      return { kind: "Webhook", source, spec: body };
    }
  }
  return fail("", `kind ${String(kind)} is not handled`);
}

function assertUnique(objects: FleetObject[]): void {
  const seen = new Map<string, Source>();
  for (const object of objects) {
    // Two files of the same bytes are one flow version: the folder may declare it once.
    const key =
      object.kind === "FlowVersion"
        ? `FlowVersion ${object.className}@${object.hash}`
        : `${object.kind} ${objectName(object)}`;
    const first = seen.get(key);
    if (first)
      throw new FolderError(
        `${object.source.file} (document ${object.source.document}): ${key} is declared twice, first in ${first.file} (document ${first.document})`,
      );
    seen.set(key, object.source);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reading a fleet folder: the YAML files directly in it (flow files may sit in its subfolders). Every file is
 * read and every object checked (its spec by the API's own compiled validators) before anything is asked of
 * the API: a broken folder changes nothing.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { ValidateFunction } from "ajv";
import { parseAllDocuments } from "yaml";
import {
  bodyValidatorOf,
  describeFailure,
  inputValidatorOf,
} from "../../functions/shared/console-openapi.js";
import type { Schemas } from "../../web/src/api/client.js";
import { assetSizeProblem } from "../../web/src/asset-parts.js";
import { flowContentType } from "../../web/src/flow-file.js";
import { sha256OfFile } from "../assets.js";
import {
  API_VERSION,
  type AssetObject,
  DECLARED_KINDS,
  type FleetObject,
  FolderError,
  type Kind,
  objectName,
  type ParameterKind,
  type Source,
} from "./objects.js";

/** Every object of every `.yaml`/`.yml` file under `folder`, checked; a FolderError for the first fault. */
export async function readFleetFolder(folder: string): Promise<FleetObject[]> {
  let files: string[];
  try {
    files = readdirSync(folder, { encoding: "utf8" })
      .filter((file) => /\.ya?ml$/i.test(file))
      .sort();
  } catch (error) {
    throw new FolderError(`Cannot read the folder ${folder}: ${(error as NodeJS.ErrnoException).code}`);
  }
  if (files.length === 0) throw new FolderError(`No .yaml or .yml file in ${folder}`);
  const objects: FleetObject[] = [];
  for (const file of files)
    objects.push(
      ...(await parseFleetFile(file, readFileSync(path.join(folder, file), "utf8"), (relative) => {
        const target = path.join(path.dirname(file), relative);
        return { file: target, location: path.join(folder, target) };
      })),
    );
  assertUnique(objects);
  return assetsOnce(objects);
}

/** The objects, each asset once: one file's bytes, however many sets hold them, are one upload. */
function assetsOnce(objects: FleetObject[]): FleetObject[] {
  const assets = new Set<string>();
  return objects.filter((object) => {
    if (object.kind !== "Asset") return true;
    if (assets.has(object.sha256)) return false;
    assets.add(object.sha256);
    return true;
  });
}

/**
 * A file named by an object (a flow, an asset), relative to the YAML file naming it: its path from the folder,
 * and where it is read from.
 */
export type FileLocator = (relative: string) => { file: string; location: string };

/**
 * The objects of one YAML file (`file` as named in errors), checked; after each class's resource set, the
 * assets among its items that no earlier object of the file names.
 */
export async function parseFleetFile(
  file: string,
  text: string,
  locate: FileLocator,
): Promise<FleetObject[]> {
  const parsed = parseAllDocuments(text);
  if (!Array.isArray(parsed)) return [];
  const objects: FleetObject[] = [];
  for (const [index, document] of parsed.entries()) {
    const source = { file, document: index + 1 };
    const [error] = document.errors;
    if (error) {
      const line = error.linePos?.[0];
      throw new FolderError(
        `${file}${line ? `:${line.line}` : ""}: not YAML: ${error.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "")}`,
      );
    }
    const value = document.toJS();
    if (value === null || value === undefined) continue;
    const object = await fleetObject(source, value, locate);
    objects.push(object);
    if (object.kind === "ClassResources") objects.push(...object.assets);
  }
  return objects;
}

/** What `read` returns from the file at `location`, or why it cannot be read. */
async function fromFile<T>(file: string, location: string, read: (location: string) => T | Promise<T>) {
  try {
    return await read(location);
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`);
  }
}

/**
 * Where each kind of parameter value is set: the metadata field naming its class, group or agent, and the API
 * operation that sets it, whose validators check that name and the value.
 */
const PARAMETER_LAYERS: Record<ParameterKind, { field: string; operationId: string; pathKey: string }> = {
  ClassParameter: { field: "class", operationId: "putClassParameter", pathKey: "className" },
  GroupParameter: { field: "group", operationId: "putGroupParameter", pathKey: "groupName" },
  AgentParameter: { field: "agent", operationId: "putAgentParameter", pathKey: "agentId" },
};

async function fleetObject(source: Source, value: unknown, locate: FileLocator): Promise<FleetObject> {
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
  if (typeof kind !== "string" || !DECLARED_KINDS.includes(kind as Kind))
    fail("", `kind must be one of ${DECLARED_KINDS.join(", ")}, not ${JSON.stringify(kind)}`);
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
      return { kind: "Settings", source, spec: checked("tenant", await bodyValidatorOf("putSettings")) };
    case "Class": {
      only("name");
      const className = name("name", await inputValidatorOf("putClass"), "className");
      return {
        kind: "Class",
        source,
        name: className,
        spec: checked(className, await bodyValidatorOf("putClass")),
      };
    }
    case "Group": {
      only("name");
      const groupName = name("name", await inputValidatorOf("putGroup"), "groupName");
      return {
        kind: "Group",
        source,
        name: groupName,
        spec: checked(groupName, await bodyValidatorOf("putGroup")),
      };
    }
    case "ClassParameter":
    case "GroupParameter":
    case "AgentParameter": {
      const { field, operationId, pathKey } = PARAMETER_LAYERS[kind as ParameterKind];
      only(field, "name");
      const pathValidator = await inputValidatorOf(operationId);
      const owner = name(field, pathValidator, pathKey, { name: "x" });
      const parameter = name("name", pathValidator, "name", { [pathKey]: owner });
      const body = checked<Schemas["ParameterValueRequest"]>(
        `${owner}/${parameter}`,
        await bodyValidatorOf(operationId),
      );
      return { kind: kind as ParameterKind, source, owner, name: parameter, spec: body };
    }
    case "FlowVersion": {
      only("class");
      const className = name("class", await inputValidatorOf("uploadFlow"), "className");
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
      if (spec.label !== undefined) checked(label, await bodyValidatorOf("labelFlow"), { label: spec.label });
      let flow: { file: string; content: Buffer };
      try {
        const { file, location } = locate(spec.file);
        flow = { file, content: await fromFile(file, location, (at) => readFileSync(at)) };
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
    case "ClassResources": {
      only("class");
      const className = name("class", await inputValidatorOf("putResourceSet"), "className");
      const where = `, ClassResources ${className}`;
      const items = isRecord(spec) ? spec.items : undefined;
      if (!isRecord(spec) || !Array.isArray(items) || Object.keys(spec).some((key) => key !== "items"))
        return fail(where, "spec must be an object with items: [{file or assetId, path}]");
      const assets: AssetObject[] = [];
      const request: { items: unknown[] } = { items: [] };
      for (const [index, item] of (items as unknown[]).entries()) {
        const field = `spec.items[${index}]`;
        if (!isRecord(item) || "file" in item === "assetId" in item)
          return fail(where, `${field} needs one of file (uploaded if absent) and assetId`);
        const unknown = Object.keys(item).find((key) => !["file", "assetId", "path"].includes(key));
        if (unknown !== undefined) fail(where, `unknown field ${field}.${unknown} (file, assetId, path)`);
        const place = item.path === undefined ? {} : { path: item.path };
        if (!("file" in item)) {
          request.items.push({ assetId: item.assetId, ...place });
          continue;
        }
        if (typeof item.file !== "string" || item.file === "")
          return fail(where, `${field}.file must be the asset's file, relative to this one`);
        const asset = await assetOf(source, item.file, locate, (message) =>
          fail(where, `${field}.file: ${message}`),
        );
        assets.push(asset);
        request.items.push({ assetId: asset.sha256, ...place });
      }
      const body = checked<Schemas["ResourceSetRequest"]>(
        className,
        await bodyValidatorOf("putResourceSet"),
        request,
      );
      const twice = body.items.find(
        ({ assetId }, index) => body.items.findIndex((item) => item.assetId === assetId) !== index,
      );
      if (twice) fail(where, `asset ${twice.assetId} is in the set twice`);
      return { kind: "ClassResources", source, className, spec: body, assets };
    }
    case "Webhook": {
      only();
      const url = isRecord(spec) && typeof spec.url === "string" ? spec.url : "";
      const body = checked<Schemas["SubscriptionRequest"]>(url, await bodyValidatorOf("createSubscription"));
      return { kind: "Webhook", source, spec: body };
    }
  }
  return fail("", `kind ${String(kind)} is not handled`);
}

/**
 * A file of a resource set: its size first (it is an asset when not empty and not over the API's limit), then
 * its SHA-256, read in chunks as an upload's is, never held whole.
 */
async function assetOf(
  source: Source,
  relative: string,
  locate: FileLocator,
  fail: (message: string) => never,
): Promise<AssetObject> {
  try {
    const { file, location } = locate(relative);
    const sizeBytes = (await fromFile(file, location, (at) => statSync(at))).size;
    const problem = assetSizeProblem(file, sizeBytes);
    if (problem !== undefined) return fail(problem);
    const sha256 = await fromFile(file, location, sha256OfFile);
    return { kind: "Asset", source, file, location, name: path.basename(file), sizeBytes, sha256 };
  } catch (error) {
    if (error instanceof FolderError) throw error;
    return fail((error as Error).message);
  }
}

function assertUnique(objects: FleetObject[]): void {
  const seen = new Map<string, Source>();
  for (const object of objects) {
    // One file may be in several classes' sets: it is one asset (see assetsOnce).
    if (object.kind === "Asset") continue;
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

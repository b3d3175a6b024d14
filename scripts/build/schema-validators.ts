/**
 * Beacon's functions validate with validators compiled ahead of time, so that none compiles a schema when it
 * starts: `npm run schemas:validators` writes them as Ajv standalone code, each module with its declarations,
 * from the JSON Schemas in schemas/ (the agent API's C2 payloads, and the stream's events the tests check) and
 * from the console API's document, schemas/console/openapi.json (its operations' parameters, bodies and
 * answers). A unit test fails when the files are stale.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import standalone from "ajv/dist/standalone/index.js";
import formats from "ajv-formats";
import {
  type ConsoleDocument,
  componentsSchema,
  documentOperations,
  operationSchemas,
} from "../../functions/shared/console-openapi-document.js";
import { parseCommandLine } from "../common/command-line.mjs";

/** Each C2 payload validator's export name and its schema's file under schemas/. */
const C2SchemaFiles = {
  heartbeat: "c2/heartbeat.schema.json",
  acknowledge: "c2/acknowledge.schema.json",
  heartbeatResponse: "c2/heartbeat-response.schema.json",
} as const;

/**
 * Each stream event validator's export name and its schema's file: a module apart from the C2 payloads', which
 * the agent API would otherwise bundle whole (Ajv's validators set properties on themselves, which keeps every
 * one of a module in a bundle that imports any).
 */
const EventSchemaFiles = {
  heartbeatEvent: "events/heartbeat-event.schema.json",
  ackEvent: "events/ack-event.schema.json",
  operationEvent: "events/operation-event.schema.json",
  rolloutEvent: "events/rollout-event.schema.json",
  certificateExpiringEvent: "events/certificate-expiring-event.schema.json",
  agentOfflineEvent: "events/agent-offline-event.schema.json",
  agentOnlineEvent: "events/agent-online-event.schema.json",
  agentDecommissionedEvent: "events/agent-decommissioned-event.schema.json",
  webhookDisabledEvent: "events/webhook-disabled-event.schema.json",
  downloadEvent: "events/download-event.schema.json",
  uploadEvent: "events/upload-event.schema.json",
} as const;

const schemasDir = new URL("../../schemas/", import.meta.url);
const sharedFile = (name: string) =>
  fileURLToPath(new URL(`../../functions/shared/${name}`, import.meta.url));

/** One file `npm run schemas:validators` writes, and what it holds. */
export interface GeneratedFile {
  file: string;
  code: string;
}

/** Biome leaves these files alone (biome.json): they are checked against the schemas instead. */
const HEADER = "// Generated from schemas/ by `npm run schemas:validators`; do not edit.\n";
const require = createRequire(import.meta.url);
const FORMATS_MODULE = "ajv-formats/dist/formats";

/**
 * The module of `ajv`'s schemas, each exported under its name (`ids`: name → schema id), with `aliases` (name →
 * name in `ids`) for schemas the same as one compiled already, and its declarations.
 */
function standaloneModule(
  ajv: Ajv2020,
  ids: Record<string, string>,
  file: string,
  aliases: Record<string, string> = {},
): GeneratedFile[] {
  // Ajv's ES module output still requires its runtime helpers; each is a self-contained function, written in.
  const code = standalone
    .default(ajv, ids)
    .replace(/require\("(ajv\/dist\/runtime\/[\w-]+)"\)\.default/g, (_match, helper: string) => {
      const source = String((require(helper) as { default: unknown }).default);
      if (source.includes("require(")) throw new Error(`${helper} is not self-contained`);
      return `(${source})`;
    })
    // The formats (date-time, uri, …) are imported as a module: their functions share helpers among them.
    .replaceAll(`require("${FORMATS_MODULE}").fullFormats`, "fullFormats");
  const imports = code.includes("fullFormats") ? `import { fullFormats } from "${FORMATS_MODULE}.js";\n` : "";
  const aliasExports = Object.entries(aliases).map(([name, same]) => `export const ${name} = ${same};\n`);
  const declarations = [
    'import type { ValidateFunction } from "ajv";',
    ...[...Object.keys(ids), ...Object.keys(aliases)].map(
      (name) => `export declare const ${name}: ValidateFunction;`,
    ),
  ].join("\n");
  return [
    { file, code: `${HEADER}${imports}${code}\n${aliasExports.join("")}` },
    { file: file.replace(/\.js$/, ".d.ts"), code: `${HEADER}${declarations}\n` },
  ];
}

/** The validators of the schemas in `files`, in one module. */
async function schemaValidators(files: Record<string, string>, file: string): Promise<GeneratedFile[]> {
  // The options Beacon always validated with; `code` asks for source that stands alone as an ES module.
  const ajv = new Ajv2020({
    allErrors: false,
    strict: true,
    allowUnionTypes: true,
    code: { source: true, esm: true },
  });
  const ids: Record<string, string> = {};
  for (const [name, schemaFile] of Object.entries(files)) {
    const schema = JSON.parse(await readFile(new URL(schemaFile, schemasDir), "utf8")) as { $id: string };
    ajv.addSchema(schema);
    ids[name] = schema.$id;
  }
  return standaloneModule(ajv, ids, sharedFile(file));
}

/**
 * The console API's document as JSON text, which the console parses when it starts: V8 reads JSON text through
 * `JSON.parse` faster than it compiles the same object as code, which is what a bundler makes of an imported
 * JSON file.
 */
function consoleDocumentText(document: ConsoleDocument): GeneratedFile[] {
  const file = sharedFile("compiled-console-openapi-text.js");
  return [
    { file, code: `${HEADER}export const openApiText = ${JSON.stringify(JSON.stringify(document))};\n` },
    { file: file.replace(/\.js$/, ".d.ts"), code: `${HEADER}export declare const openApiText: string;\n` },
  ];
}

/** An Ajv for the console's document: its components registered, for the operations' schemas to refer to. */
function consoleAjv(document: ConsoleDocument, coerceTypes: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: false,
    strict: true,
    coerceTypes,
    // References call the component's one validator rather than repeating its code in every schema.
    inlineRefs: false,
    code: { source: true, esm: true },
  });
  formats.default(ajv);
  ajv.addSchema(componentsSchema(document));
  return ajv;
}

/**
 * `schemas` added to `ajv` by their names, each schema the same as one added already exported as an alias of it
 * (`ids` and `aliases` as `standaloneModule` takes them).
 */
function addedOnce(ajv: Ajv2020, schemas: Record<string, unknown>[]) {
  const byText = new Map<string, string>();
  const ids: Record<string, string> = {};
  const aliases: Record<string, string> = {};
  for (const [name, schema] of schemas.flatMap((named) => Object.entries(named))) {
    const text = JSON.stringify(schema);
    const same = byText.get(text);
    if (same === undefined) {
      ajv.addSchema(schema as object, name);
      byText.set(text, name);
      ids[name] = name;
    } else aliases[name] = same;
  }
  return { ids, aliases };
}

/**
 * Where each console operation's validators are written, a module per operation in each: its parameters', which
 * arrive as text and are converted to their types (`coerceTypes`), and its body's and answers', checked as they are.
 */
const VALIDATOR_FOLDERS = {
  parameters: "compiled-console-parameters",
  documents: "compiled-console-documents",
} as const;

/** The module that names each operation's imports of its validators' modules. */
const OPERATIONS_INDEX = "compiled-console-operations.js";

/**
 * The console API's validators: each operation's, a module of its own in each of VALIDATOR_FOLDERS, imported when
 * the operation is first called, so that a function's code package holds each as a chunk its cold start does not
 * compile (infra/lib/beacon-function.ts). OPERATIONS_INDEX names each operation's imports.
 */
function consoleValidators(document: ConsoleDocument): GeneratedFile[] {
  const operations = documentOperations(document).map((operation) => ({
    operationId: operation.operation.operationId,
    schemas: operationSchemas(document, operation),
  }));
  const modules = operations.flatMap(({ operationId, schemas }) =>
    (Object.keys(VALIDATOR_FOLDERS) as (keyof typeof VALIDATOR_FOLDERS)[]).flatMap((kind) => {
      const ajv = consoleAjv(document, kind === "parameters");
      const { ids, aliases } = addedOnce(ajv, [schemas[kind]]);
      const file = sharedFile(`${VALIDATOR_FOLDERS[kind]}/${operationId}.js`);
      return standaloneModule(ajv, ids, file, aliases).slice(0, 1);
    }),
  );
  const index = sharedFile(OPERATIONS_INDEX);
  const imports = operations.map(
    ({ operationId }) =>
      `  ${operationId}: {\n${Object.entries(VALIDATOR_FOLDERS)
        .map(([kind, folder]) => `    ${kind}: () => import("./${folder}/${operationId}.js"),\n`)
        .join("")}  },\n`,
  );
  return [
    ...modules,
    { file: index, code: `${HEADER}export const operationValidatorsOf = {\n${imports.join("")}};\n` },
    {
      file: index.replace(/\.js$/, ".d.ts"),
      code: `${HEADER}import type { ValidateFunction } from "ajv";\ntype Validators = () => Promise<Record<string, ValidateFunction>>;\n/** Each operation's validators by operationId, imported on first use: its parameters', and its body's and answers'. */\nexport declare const operationValidatorsOf: Record<string, { parameters: Validators; documents: Validators }>;\n`,
    },
  ];
}

/** Every validators' module and its declarations, as the schemas compile now. */
export async function generateValidators(): Promise<GeneratedFile[]> {
  const consoleDocument = JSON.parse(
    await readFile(new URL("console/openapi.json", schemasDir), "utf8"),
  ) as ConsoleDocument;
  return [
    ...(await schemaValidators(C2SchemaFiles, "compiled-validators.js")),
    ...(await schemaValidators(EventSchemaFiles, "compiled-event-validators.js")),
    ...consoleValidators(consoleDocument),
    ...consoleDocumentText(consoleDocument),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  parseCommandLine(
    "Usage: npm run schemas:validators\n\nWrites the functions' validators, compiled ahead of time, from the JSON Schemas in schemas/.",
    { options: {} },
  );
  const files = await generateValidators();
  // An operation taken out of the document takes its validators' modules with it.
  for (const folder of Object.values(VALIDATOR_FOLDERS)) {
    await rm(sharedFile(folder), { recursive: true, force: true });
    await mkdir(sharedFile(folder));
  }
  for (const { file, code } of files) await writeFile(file, code);
  console.log(`wrote ${files.length} files under ${sharedFile("")}`);
}

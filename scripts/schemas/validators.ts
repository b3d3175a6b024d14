/**
 * The agent API validates C2 payloads, and tests validate stream events, with validators compiled ahead of
 * time: `npm run schemas:validators` writes them from the JSON Schemas in schemas/ as Ajv standalone code
 * (functions/shared/compiled-validators.js, with its declarations), so a function compiles no schema when it
 * starts. A unit test fails when the files are stale.
 */
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import standalone from "ajv/dist/standalone/index.js";

/** Each validator's export name and its schema's file under schemas/. */
export const SchemaFiles = {
  heartbeat: "c2/heartbeat.schema.json",
  acknowledge: "c2/acknowledge.schema.json",
  heartbeatResponse: "c2/heartbeat-response.schema.json",
  heartbeatEvent: "events/heartbeat-event.schema.json",
  ackEvent: "events/ack-event.schema.json",
  operationEvent: "events/operation-event.schema.json",
  rolloutEvent: "events/rollout-event.schema.json",
  certificateExpiringEvent: "events/certificate-expiring-event.schema.json",
  agentOfflineEvent: "events/agent-offline-event.schema.json",
  agentOnlineEvent: "events/agent-online-event.schema.json",
  webhookDisabledEvent: "events/webhook-disabled-event.schema.json",
} as const;

const schemasDir = new URL("../../schemas/", import.meta.url);
export const VALIDATORS_FILE = fileURLToPath(
  new URL("../../functions/shared/compiled-validators.js", import.meta.url),
);
export const DECLARATIONS_FILE = VALIDATORS_FILE.replace(/\.js$/, ".d.ts");

/** Biome leaves both files alone (biome.json): they are checked against the schemas instead. */
const HEADER = "// Generated from schemas/ by `npm run schemas:validators`; do not edit.\n";
const require = createRequire(import.meta.url);

/** The validators' module and its declarations, as the schemas compile now. */
export async function generateValidators(): Promise<{ code: string; declarations: string }> {
  // The options Beacon always validated with; `code` asks for source that stands alone as an ES module.
  const ajv = new Ajv2020({
    allErrors: false,
    strict: true,
    allowUnionTypes: true,
    code: { source: true, esm: true },
  });
  const ids: Record<string, string> = {};
  for (const [name, file] of Object.entries(SchemaFiles)) {
    const schema = JSON.parse(await readFile(new URL(file, schemasDir), "utf8")) as { $id: string };
    ajv.addSchema(schema);
    ids[name] = schema.$id;
  }
  // Ajv's ES module output still requires its runtime helpers; each is a self-contained function, written in.
  const code = standalone
    .default(ajv, ids)
    .replace(/require\("(ajv\/dist\/runtime\/[\w-]+)"\)\.default/g, (_match, helper: string) => {
      const source = String((require(helper) as { default: unknown }).default);
      if (source.includes("require(")) throw new Error(`${helper} is not self-contained`);
      return `(${source})`;
    });
  const declarations = [
    'import type { ValidateFunction } from "ajv";',
    ...Object.keys(SchemaFiles).map((name) => `export declare const ${name}: ValidateFunction;`),
  ].join("\n");
  return { code: `${HEADER}${code}\n`, declarations: `${HEADER}${declarations}\n` };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { code, declarations } = await generateValidators();
  await writeFile(VALIDATORS_FILE, code);
  await writeFile(DECLARATIONS_FILE, declarations);
  console.log(`wrote ${VALIDATORS_FILE} and ${DECLARATIONS_FILE}`);
}

/**
 * The console's typed client comes from the console API's OpenAPI document: `npm run web:api-types` writes
 * `web/src/api/schema.d.ts` from `schemas/console/openapi.json`, and a unit test fails when the file is stale.
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { parseCommandLine } from "../../scripts/common/command-line.mjs";

export const OPENAPI_DOCUMENT = fileURLToPath(new URL("../../schemas/console/openapi.json", import.meta.url));
export const API_TYPES_FILE = fileURLToPath(new URL("../src/api/schema.d.ts", import.meta.url));

/** Biome leaves the file alone (biome.json): it is checked against the document instead. */
const HEADER = "// Generated from schemas/console/openapi.json by `npm run web:api-types`; do not edit.\n\n";

export async function generateApiTypes(): Promise<string> {
  const document = JSON.parse(await readFile(OPENAPI_DOCUMENT, "utf8"));
  return HEADER + astToString(await openapiTS(document));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  parseCommandLine(
    "Usage: npm run web:api-types\n\nWrites web/src/api/schema.d.ts, the console's API types, from schemas/console/openapi.json.",
    { options: {} },
  );
  await writeFile(API_TYPES_FILE, await generateApiTypes());
  console.log(`wrote ${API_TYPES_FILE}`);
}

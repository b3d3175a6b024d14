/**
 * The console's typed client comes from the console API's OpenAPI document: `npm run web:api-types` writes
 * `web/src/api/schema.d.ts` from `schemas/console/openapi.json`, and beside it `web/src/api/operations.ts`,
 * each route's `x-beacon-role` and `x-beacon-scope`, by which the console hides what a session may not call.
 * A unit test fails when either file is stale.
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { parseCommandLine } from "../../scripts/common/command-line.mjs";

export const OPENAPI_DOCUMENT = fileURLToPath(new URL("../../schemas/console/openapi.json", import.meta.url));
export const API_TYPES_FILE = fileURLToPath(new URL("../src/api/schema.d.ts", import.meta.url));
export const API_OPERATIONS_FILE = fileURLToPath(new URL("../src/api/operations.ts", import.meta.url));

/** Biome leaves the files alone (biome.json): they are checked against the document instead. */
const HEADER = "// Generated from schemas/console/openapi.json by `npm run web:api-types`; do not edit.\n\n";

type Document = { paths: Record<string, Record<string, Record<string, unknown>>> };

const readDocument = async (): Promise<Document> => JSON.parse(await readFile(OPENAPI_DOCUMENT, "utf8"));

export async function generateApiTypes(): Promise<string> {
  return HEADER + astToString(await openapiTS((await readDocument()) as never));
}

/** Each operation's least role and scope, keyed as API Gateway spells a route: `GET /api/v1/agents`. */
export async function generateApiOperations(): Promise<string> {
  const routes = Object.entries((await readDocument()).paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, operation]) => typeof operation.operationId === "string")
      .map(([method, operation]) => [
        `${method.toUpperCase()} ${path}`,
        { role: operation["x-beacon-role"], scope: operation["x-beacon-scope"] },
      ]),
  );
  return (
    HEADER +
    "/** Each route's least role (`x-beacon-role`) and what it is to a session limited to classes (`x-beacon-scope`). */\n" +
    `export const operations = ${JSON.stringify(Object.fromEntries(routes), null, 2)} as const;\n`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  parseCommandLine(
    "Usage: npm run web:api-types\n\nWrites web/src/api/schema.d.ts and web/src/api/operations.ts, the console's API types and each route's role and scope, from schemas/console/openapi.json.",
    { options: {} },
  );
  await writeFile(API_TYPES_FILE, await generateApiTypes());
  await writeFile(API_OPERATIONS_FILE, await generateApiOperations());
  console.log(`wrote ${API_TYPES_FILE} and ${API_OPERATIONS_FILE}`);
}

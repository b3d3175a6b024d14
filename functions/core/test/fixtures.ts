import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "../c2/json.js";

/** The shared, real C2 payloads every Beacon developer has beside the project. */
const examplesDir = fileURLToPath(new URL("../../../../shared/c2/examples/", import.meta.url));

export const exampleText = (name: string): string => readFileSync(`${examplesDir}${name}`, "utf8");
export const example = (name: string): JsonObject => JSON.parse(exampleText(name)) as JsonObject;

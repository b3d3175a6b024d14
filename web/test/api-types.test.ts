import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import {
  API_OPERATIONS_FILE,
  API_TYPES_FILE,
  generateApiOperations,
  generateApiTypes,
} from "../tools/api-types.js";

describe("the web console's API client", () => {
  it("is typed from the console API's current OpenAPI document (npm run web:api-types rewrites it)", async () => {
    expect(await readFile(API_TYPES_FILE, "utf8")).toBe(await generateApiTypes());
  });

  it("knows each route's role and scope from the current document (npm run web:api-types rewrites them)", async () => {
    expect(await readFile(API_OPERATIONS_FILE, "utf8")).toBe(await generateApiOperations());
  });
});

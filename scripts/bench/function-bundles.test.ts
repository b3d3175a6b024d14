import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { builtinAliases } from "../../infra/lib/beacon-function.js";
import { AGENT_API_BUNDLE_LIMIT_BYTES, bundleFunction } from "./function-bundles.js";

const outDir = mkdtempSync(path.join(tmpdir(), "beacon-bundles-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

it("bundles the agent API, as a deployment does, within 1.05 MB minified", async () => {
  const bundle = await bundleFunction("agent-api", outDir);
  expect(bundle.file).toBe(path.join(outDir, "agent-api", "index.mjs"));
  expect(bundle.bytes).toBeGreaterThan(0);
  expect(bundle.bytes).toBeLessThanOrEqual(AGENT_API_BUNDLE_LIMIT_BYTES);
}, 30_000);

it("takes the built-ins whose ES module facade is costly through require, importing none of them", async () => {
  const bundle = await bundleFunction("agent-api", outDir);
  const folder = path.dirname(bundle.file);
  const files = readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((file) =>
    file.endsWith(".mjs"),
  );
  expect(files.length).toBeGreaterThan(1);
  const imported = files.flatMap((file) =>
    [...readFileSync(path.join(folder, file), "utf8").matchAll(/from\s*"([^"]+)"/g)].map(
      ([, specifier]) => specifier ?? "",
    ),
  );
  expect(imported).toContain("node:crypto");
  expect(imported.filter((specifier) => specifier in builtinAliases)).toEqual([]);
}, 30_000);

it("leaves the AWS SDK out of the agent API's, the console's, the sweeper's and the stream consumer's cold starts: its calls are direct", async () => {
  for (const name of ["agent-api", "console-api", "sweeper", "stream-consumer"]) {
    const bundle = await bundleFunction(name, outDir);
    expect(bundle.sourcesAtStart.some((source) => source.includes("/@aws-lambda-powertools/"))).toBe(true);
    expect(bundle.sourcesAtStart.filter((source) => /\/@(aws-sdk|smithy)\//.test(source))).toEqual([]);
  }
}, 60_000);

it("leaves the debug bundle's form reader out of the agent API's cold start: the first bundle loads it", async () => {
  const bundle = await bundleFunction("agent-api", outDir);
  expect(bundle.sourcesAtStart.some((source) => source.includes("/ioredis/"))).toBe(true);
  expect(bundle.sourcesAtStart.filter((source) => /\/(busboy|streamsearch)\//.test(source))).toEqual([]);
}, 30_000);

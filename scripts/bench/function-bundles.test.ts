import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { AGENT_API_BUNDLE_LIMIT_BYTES, bundleFunction } from "./function-bundles.js";

const outDir = mkdtempSync(path.join(tmpdir(), "beacon-bundles-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

it("bundles the agent API, as a deployment does, within 1.05 MB minified", async () => {
  const bundle = await bundleFunction("agent-api", outDir);
  expect(bundle.file).toBe(path.join(outDir, "agent-api", "index.mjs"));
  expect(bundle.bytes).toBeGreaterThan(0);
  expect(bundle.bytes).toBeLessThanOrEqual(AGENT_API_BUNDLE_LIMIT_BYTES);
}, 30_000);

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { repositoryRoot } from "../../infra/lib/paths.js";
import { bundleFunction } from "../bench/function-bundles.js";
import { mapStackTrace } from "./stack.js";

const outDir = mkdtempSync(path.join(tmpdir(), "beacon-stack-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

it("maps the frames of a bundle's stack trace, printed without source maps, to Beacon's source lines", async () => {
  const bundle = await bundleFunction("webhook-dispatcher", outDir);
  // Without its environment, the function's cold start fails reading its configuration.
  const started = spawnSync(process.execPath, [bundle.file], {
    env: { PATH: process.env.PATH },
    encoding: "utf8",
  });
  const trace = started.stderr.slice(started.stderr.indexOf("Error: Environment variable"));
  expect(trace).toMatch(/at \S+ \(file:\/\/\S+index\.mjs:\d+:\d+\)/);

  const configSource = "functions/shared/config.ts";
  const throwLine =
    readFileSync(path.join(repositoryRoot, configSource), "utf8")
      .split("\n")
      .findIndex((line) => line.includes("must be set`")) + 1;
  const map = JSON.parse(readFileSync(`${bundle.file}.map`, "utf8"));
  const mapped = mapStackTrace(trace, map, path.dirname(bundle.file));

  expect(mapped.split("\n")[1]).toMatch(new RegExp(`^\\s+at \\S+ \\(${configSource}:${throwLine}:\\d+\\)$`));
  expect(mapped).toContain("functions/webhook-dispatcher/handler.ts:");
  expect(mapped).not.toContain("index.mjs");
  expect(mapped).toContain("(node:internal/modules/esm/module_job");
  // As Lambda's log holds it: the logger's JSON line, its stack's line breaks escaped.
  const logLine = JSON.stringify({ level: "ERROR", error: { stack: trace } });
  expect(JSON.parse(mapStackTrace(logLine, map, path.dirname(bundle.file))).error.stack).toBe(mapped);
}, 60_000);

import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { SourceMap } from "node:module";
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
  const codeDirectory = path.dirname(bundle.file);
  const mapped = mapStackTrace(trace, codeDirectory);

  expect(mapped.split("\n")[1]).toMatch(new RegExp(`^\\s+at \\S+ \\(${configSource}:${throwLine}:\\d+\\)$`));
  expect(mapped).toContain("functions/webhook-dispatcher/handler.ts:");
  expect(mapped).not.toContain("index.mjs");
  expect(mapped).toContain("(node:internal/modules/esm/module_job");
  // As Lambda's log holds it: the logger's JSON line, its stack's line breaks escaped.
  const logLine = JSON.stringify({ level: "ERROR", error: { stack: trace } });
  expect(JSON.parse(mapStackTrace(logLine, codeDirectory)).error.stack).toBe(mapped);
}, 60_000);

it("maps a frame in a chunk, code the function imports on first use, through the chunk's own map", async () => {
  const bundle = await bundleFunction("console-api", outDir);
  const codeDirectory = path.dirname(bundle.file);
  const issuerSource = "functions/adapters/x509/issuer.ts";
  const chunk = readdirSync(path.join(codeDirectory, "chunks")).find((file) => {
    if (!file.endsWith(".mjs")) return false;
    const { sources } = JSON.parse(readFileSync(path.join(codeDirectory, "chunks", `${file}.map`), "utf8"));
    return (sources as string[]).some((source) => source.endsWith(issuerSource));
  });
  expect(chunk).toBeDefined();
  // A place in the chunk that its map says is the issuer's code: where a frame of it would point.
  const map = new SourceMap(
    JSON.parse(readFileSync(path.join(codeDirectory, "chunks", `${chunk}.map`), "utf8")),
  );
  const code = readFileSync(path.join(codeDirectory, "chunks", chunk as string), "utf8").split("\n");
  const place = code
    .flatMap((text, line) => [...text.matchAll(/function /g)].map(({ index }) => ({ line, column: index })))
    .find(({ line, column }) => {
      const entry = map.findEntry(line, column);
      return "originalSource" in entry && entry.originalSource.endsWith(issuerSource);
    });
  expect(place).toBeDefined();
  const { line, column } = place as { line: number; column: number };
  const trace = `Error: x\n    at issue (file:///var/task/chunks/${chunk}:${line + 1}:${column + 1})`;
  expect(mapStackTrace(trace, codeDirectory)).toMatch(new RegExp(`\\(${issuerSource}:\\d+:\\d+\\)$`));
}, 60_000);

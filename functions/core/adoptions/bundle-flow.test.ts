import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { tarGz } from "../../../scripts/common/debug-bundle-form.js";
import { isBeaconError } from "../errors.js";
import { flowInBundle } from "./bundle-flow.js";

const text = (value: string) => new TextEncoder().encode(value);
const flowJson = JSON.stringify({
  encodingVersion: { majorVersion: 2, minorVersion: 0 },
  rootGroup: { identifier: "root", name: "pumps", processors: [], processGroups: [], controllerServices: [] },
});
const limits = { maxFlowBytes: 64 * 1024, maxTarBytes: 4 * 1024 * 1024 };

/** The bundle's bytes as a stream of small chunks, as S3 hands them over. */
async function* chunksOf(bytes: Uint8Array, size = 700) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** What the bundle reader refuses it with, or "read" when it reads a flow. */
async function refusalOf(bytes: Uint8Array): Promise<string> {
  try {
    await flowInBundle(chunksOf(bytes), limits);
    return "read";
  } catch (error) {
    if (!isBeaconError(error)) throw error;
    expect(error.code).toBe("invalid_request");
    return error.message;
  }
}

describe("the flow in an agent's debug bundle", () => {
  it("reads MiNiFi Java's flow, which its handler bundles inflated as flow.json, passing over the logs and properties before it", async () => {
    const bundle = tarGz([
      { name: "minifi-app.log", bytes: text("INFO started\n".repeat(5_000)) },
      { name: "bootstrap.conf", bytes: text("java=java\n") },
      { name: "flow.json", bytes: text(flowJson) },
      { name: "manifest.json", bytes: text("{}") },
    ]);
    const flow = await flowInBundle(chunksOf(bundle), limits);
    expect(flow.entry).toBe("flow.json");
    expect(new TextDecoder().decode(flow.bytes)).toBe(flowJson);
  });

  it("reads the C++ agent's flow configuration file, config.yml, whatever its layout", async () => {
    const yaml = "Flow Controller:\n  name: pumps\nProcessors: []\n";
    const bundle = tarGz([
      { name: "minifi.log.gz", bytes: gzipSync(text("log line\n")) },
      { name: "config.yml", bytes: text(yaml) },
      { name: "minifi.properties", bytes: text("nifi.c2.enable=true\n") },
    ]);
    const flow = await flowInBundle(chunksOf(bundle), limits);
    expect(flow).toEqual({ entry: "config.yml", bytes: expect.any(Uint8Array) });
    expect(new TextDecoder().decode(flow.bytes)).toBe(yaml);
  });

  it("refuses a bundle that inflates past the limit (a gzip bomb), having held no more than a chunk of it", async () => {
    const bomb = tarGz([{ name: "minifi-app.log", bytes: new Uint8Array(8 * 1024 * 1024) }]);
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(await refusalOf(bomb)).toMatch(/inflates past 4194304 bytes/);
  });

  it("refuses a flow entry larger than a flow version may be, before reading it", async () => {
    const large = tarGz([{ name: "config.yml", bytes: new Uint8Array(limits.maxFlowBytes + 1) }]);
    expect(await refusalOf(large)).toMatch(/config.yml holds 65537 bytes, more than the 65536/);
  });

  it("refuses what is not a gzip tar, and a bundle without a flow", async () => {
    expect(await refusalOf(text("not gzip at all"))).toMatch(/not a gzip tar/);
    expect(await refusalOf(gzipSync(text("gzip, but no tar ".repeat(100))))).toMatch(/not a tar archive/);
    const truncated = tarGz([{ name: "config.yml", bytes: text(flowJson) }]);
    expect(await refusalOf(truncated.subarray(0, 40))).toMatch(/not a gzip tar/);
    expect(await refusalOf(tarGz([{ name: "minifi-app.log", bytes: text("x") }]))).toMatch(
      /has none of flow.json, config.yml/,
    );
  });
});

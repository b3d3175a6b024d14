import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { cppAgentOf, example, javaAgentOf } from "../../../scripts/common/c2-examples.js";
import type { JsonObject } from "../json.js";
import { binaryOf, PER_AGENT_FIELDS, RecentBinaries } from "./canonical.js";

const manifestOf = (message: JsonObject) => (message.agentInfo as JsonObject).agentManifest as JsonObject;
const bundlesOf = (manifest: JsonObject) => manifest.bundles as JsonObject[];
const processorsOf = (bundle: JsonObject) =>
  (bundle.componentManifest as JsonObject).processors as JsonObject[] | undefined;

/** The C++ dump's stringified leaves ("false", "1") written as the JSON types they stand for. */
const typedLeaves = (manifest: JsonObject): JsonObject =>
  JSON.parse(JSON.stringify(manifest), (_key, value) => {
    if (value === "true" || value === "false") return value === "true";
    return typeof value === "string" && /^-?[1-9][0-9]{0,14}$/.test(value) ? Number(value) : value;
  });

describe("a binary's canonical identity", () => {
  const cpp = manifestOf(example("cpp/heartbeat-full.json"));
  const java = manifestOf(example("java-2.3.0/ack-describe-manifest.json"));

  it("is the same for agents of one build whose own values differ (C++: ids, flow, component UUIDs)", () => {
    const first = cppAgentOf("gw-1", "gateways");
    const second = cppAgentOf("gw-2", "gateways");
    expect(first.manifestHash).not.toBe(second.manifestHash);
    const ids = [cpp, manifestOf(first.full()), manifestOf(second.full())].map(
      (manifest) => binaryOf(manifest).manifestId,
    );
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(/^[0-9a-f]{64}$/);
    // The DESCRIBE ack's manifest is the full heartbeat's.
    expect(binaryOf(manifestOf(example("cpp/ack-describe-manifest.json"))).manifestId).toBe(ids[0]);
  });

  it("is the same for agents of one build whose own values differ (Java: c2.agent.identifier)", () => {
    const first = javaAgentOf("java-1", "probe-class");
    const second = javaAgentOf("java-2", "probe-class");
    expect(first.manifestHash).not.toBe(second.manifestHash);
    const ids = [java, manifestOf(first.describeAck("op-1")), manifestOf(second.full())].map(
      (manifest) => binaryOf(manifest).manifestId,
    );
    expect(new Set(ids).size).toBe(1);
  });

  it("does not change with the order of bundles and components, or with leaves written as strings", () => {
    const reordered = {
      ...cpp,
      bundles: [...bundlesOf(cpp)].reverse().map((bundle) => {
        const processors = processorsOf(bundle);
        if (!processors) return bundle;
        const componentManifest = {
          ...(bundle.componentManifest as JsonObject),
          processors: [...processors].reverse(),
        };
        return { ...bundle, componentManifest };
      }),
    };
    const typed = typedLeaves(cpp);
    expect(typed).not.toEqual(cpp);
    const keysReversed = Object.fromEntries(Object.entries(cpp).reverse());
    for (const variant of [reordered, typed, keysReversed])
      expect(binaryOf(variant).manifestId).toBe(binaryOf(cpp).manifestId);
  });

  it("differs when the bundles or their component definitions differ", () => {
    const id = binaryOf(cpp).manifestId;
    const [first, ...rest] = bundlesOf(cpp) as [JsonObject, ...JsonObject[]];
    const withoutBundle = { ...cpp, bundles: rest };
    const otherVersion = { ...cpp, bundles: [{ ...first, version: "0.0.1" }, ...rest] };
    const [processor, ...otherProcessors] = processorsOf(first) as [JsonObject, ...JsonObject[]];
    const otherDefinition = {
      ...cpp,
      bundles: [
        {
          ...first,
          componentManifest: {
            ...(first.componentManifest as JsonObject),
            processors: [{ ...processor, supportsDynamicProperties: "true" }, ...otherProcessors],
          },
        },
        ...rest,
      ],
    };
    const otherBuild = { ...cpp, buildInfo: { ...(cpp.buildInfo as JsonObject), revision: "0".repeat(40) } };
    const ids = [withoutBundle, otherVersion, otherDefinition, otherBuild, java].map(
      (manifest) => binaryOf(manifest).manifestId,
    );
    expect(new Set([id, ...ids]).size).toBe(6);
  });

  it("is the SHA-256 of the canonical form of the manifest without its per-agent fields", () => {
    const { manifestId, canonicalJson } = binaryOf(java);
    expect(createHash("sha256").update(canonicalJson).digest("hex")).toBe(manifestId);
    expect(PER_AGENT_FIELDS).toEqual(["identifier", "supportedOperations"]);
    const content = JSON.parse(canonicalJson) as JsonObject;
    expect(Object.keys(content)).toEqual(["agentType", "buildInfo", "bundles", "version"]);
    expect(content.buildInfo).toEqual({ timestamp: "1700000000000", version: "2.3.0" });
    expect(binaryOf({ ...java, identifier: "another", supportedOperations: [] }).canonicalJson).toBe(
      canonicalJson,
    );
  });
});

describe("recent binaries", () => {
  /** The manifest as a request brings it: parsed anew, sharing nothing with any other. */
  const parsedManifestOf = (message: JsonObject) =>
    JSON.parse(JSON.stringify(manifestOf(message))) as JsonObject;
  const cpp = parsedManifestOf(example("cpp/heartbeat-full.json"));

  it("recognises another agent's manifest of a binary read before as that binary, whatever its own values", () => {
    const recent = new RecentBinaries(2);
    const first = recent.binaryOf(parsedManifestOf(cppAgentOf("gw-1", "gateways").full()));
    const other = parsedManifestOf(cppAgentOf("gw-2", "gateways").full());
    const recognised = recent.binaryOf(other);
    // The very binary read before: not canonicalised again.
    expect(recognised).toBe(first);
    expect(recognised).toEqual(binaryOf(other));
  });

  it("canonicalises a manifest that differs from those read before anywhere, or only in order or leaf types", () => {
    const recent = new RecentBinaries(2);
    const kept = recent.binaryOf(cpp);
    const deepChange = parsedManifestOf(example("cpp/heartbeat-full.json"));
    const [bundle] = bundlesOf(deepChange) as [JsonObject];
    const [processor] = processorsOf(bundle) as [JsonObject];
    processor.supportsDynamicProperties = processor.supportsDynamicProperties === "true" ? "false" : "true";
    const reordered = { ...cpp, bundles: [...bundlesOf(cpp)].reverse() };
    const extraField = { ...cpp, connectors: [] };
    for (const variant of [deepChange, reordered, typedLeaves(cpp), extraField]) {
      const binary = recent.binaryOf(variant);
      expect(binary).not.toBe(kept);
      expect(binary).toEqual(binaryOf(variant));
    }
    expect(recent.binaryOf(deepChange).manifestId).not.toBe(kept.manifestId);
    expect(recent.binaryOf(reordered).manifestId).toBe(kept.manifestId);
  });

  it("keeps its own copy of what the request may change, beside the frozen values requests share", () => {
    const recent = new RecentBinaries(2);
    // As the agent API parses a build's bundles once: one frozen value in every agent's manifest.
    const bundles = Object.freeze(bundlesOf(parsedManifestOf(example("cpp/heartbeat-full.json"))));
    const first: JsonObject = { ...parsedManifestOf(cppAgentOf("gw-1", "gateways").full()), bundles };
    const kept = recent.binaryOf(first);
    (first.buildInfo as JsonObject).version = "changed once registered";
    const next = { ...parsedManifestOf(cppAgentOf("gw-2", "gateways").full()), bundles };
    expect(recent.binaryOf(next)).toBe(kept);
  });

  it("keeps only the binaries read last", () => {
    const recent = new RecentBinaries(1);
    const kept = recent.binaryOf(cpp);
    recent.binaryOf(parsedManifestOf(example("java-2.3.0/ack-describe-manifest.json")));
    expect(recent.binaryOf(cpp)).not.toBe(kept);
    expect(recent.binaryOf(cpp)).toBe(recent.binaryOf(cpp));
  });
});

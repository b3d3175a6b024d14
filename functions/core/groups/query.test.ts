import { describe, expect, it } from "vitest";
import { example } from "../../../scripts/common/c2-examples.js";
import { asObject, type JsonObject } from "../json.js";
import type { ManifestRecord } from "../manifests/ports.js";
import { canRun } from "./components.js";
import { type Binary, filtersOfGroup, matchingBinaries, needsHotState, validateGroupQuery } from "./query.js";

/** The manifests real agents describe: MiNiFi Java 2.3.0's and an all-extensions MiNiFi C++ build's. */
const manifestOf = (name: string) => asObject(asObject(example(name).agentInfo)?.agentManifest) as JsonObject;
const javaManifest = manifestOf("java-2.3.0/ack-describe-manifest.json");
const cppManifest = manifestOf("cpp/ack-describe-manifest.json");

const record = (manifestId: string, agentType: string, version: string): ManifestRecord => ({
  manifestId,
  agentType,
  version,
  bundleCount: 1,
  processorTypeCount: 1,
  controllerServiceTypeCount: 0,
  jsonBytes: 1,
  gzipBytes: 1,
  createdAt: 0,
});
const JAVA = "a".repeat(64);
const CPP = "c".repeat(64);
const binaries: Binary[] = [
  { record: record(JAVA, "minifi-java", "2.3.0"), content: javaManifest },
  { record: record(CPP, "cpp", "1.0.0"), content: cppManifest },
];

const PUBLISH_KAFKA = "org.apache.nifi.minifi.processors.PublishKafka";
const GENERATE = "org.apache.nifi.processors.standard.GenerateFlowFile";

describe("the components a binary can run", () => {
  it("are the C++ manifest's, with the coordinates of the bundle that lists them", () => {
    expect(canRun(cppManifest, { kind: "processor", type: PUBLISH_KAFKA })).toBe(true);
    expect(
      canRun(cppManifest, {
        kind: "processor",
        type: PUBLISH_KAFKA,
        group: "org.apache.nifi.minifi",
        artifact: "minifi-kafka",
        version: { atLeast: "1.0.0", below: "2.0.0" },
      }),
    ).toBe(true);
    expect(canRun(cppManifest, { kind: "processor", type: PUBLISH_KAFKA, artifact: "minifi-aws" })).toBe(
      false,
    );
    expect(
      canRun(cppManifest, { kind: "processor", type: PUBLISH_KAFKA, version: { atLeast: "2.0.0" } }),
    ).toBe(false);
    // A processor type is no controller service.
    expect(canRun(cppManifest, { kind: "controllerService", type: PUBLISH_KAFKA })).toBe(false);
  });

  it("are the Java manifest's, with the coordinates each component states", () => {
    const generate = { kind: "processor", type: GENERATE } as const;
    expect(canRun(javaManifest, generate)).toBe(true);
    expect(
      canRun(javaManifest, { ...generate, artifact: "nifi-standard-nar", version: { exactly: "2.3.0" } }),
    ).toBe(true);
    expect(canRun(javaManifest, { ...generate, version: { below: "2.3.0" } })).toBe(false);
    expect(canRun(javaManifest, { kind: "processor", type: PUBLISH_KAFKA })).toBe(false);
    expect(canRun({}, generate)).toBe(false);
  });
});

describe("a group's query", () => {
  it("keeps the binaries its agent type, version, manifest ids and components all hold for", () => {
    expect(matchingBinaries({ components: [{ kind: "processor", type: PUBLISH_KAFKA }] }, binaries)).toEqual([
      CPP,
    ]);
    expect(matchingBinaries({ agentType: "minifi-java" }, binaries)).toEqual([JAVA]);
    expect(matchingBinaries({ agentVersion: { atLeast: "1.0.0" } }, binaries)).toEqual([JAVA, CPP]);
    expect(matchingBinaries({ agentVersion: { atLeast: "2.0.0", below: "3.0.0" } }, binaries)).toEqual([
      JAVA,
    ]);
    expect(matchingBinaries({ manifestIds: [CPP], agentType: "minifi-java" }, binaries)).toEqual([]);
    expect(
      matchingBinaries(
        {
          components: [
            { kind: "processor", type: PUBLISH_KAFKA },
            { kind: "processor", type: GENERATE },
          ],
        },
        binaries,
      ),
    ).toEqual([]);
    // A binary whose content was not read runs no component the query names.
    expect(
      matchingBinaries({ components: [{ kind: "processor", type: GENERATE }] }, [
        { record: record(JAVA, "x", "1") },
      ]),
    ).toEqual([]);
  });

  it("becomes the agent list's filters at a time, or none when no binary matched", () => {
    const now = Date.UTC(2026, 10, 29, 12);
    expect(
      filtersOfGroup(
        { classes: ["pumps"], labels: ["site=plant-7", "gpu"], status: "online", seenWithinMinutes: 5 },
        undefined,
        now,
      ),
    ).toEqual({
      agentClass: "pumps",
      labels: [{ key: "site", value: "plant-7" }, { key: "gpu" }],
      status: "online",
      lastSeenAfter: now - 300_000,
    });
    expect(
      filtersOfGroup(
        {
          classes: ["pumps", "valves"],
          operatingSystem: "Linux",
          machineArch: "aarch64",
          silentForMinutes: 60,
        },
        [CPP],
        now,
      ),
    ).toEqual({
      agentClasses: ["pumps", "valves"],
      manifestIds: [CPP],
      operatingSystem: "Linux",
      machineArch: "aarch64",
      lastSeenBefore: now - 3_600_000,
    });
    expect(filtersOfGroup({ agentType: "none" }, [], now)).toBeUndefined();
    expect(filtersOfGroup({}, undefined, now)).toEqual({});
    expect(needsHotState({ agentClass: "pumps" })).toBe(false);
    expect(needsHotState({ lastSeenBefore: now })).toBe(true);
  });

  it("is refused when it names what cannot be, saying what", () => {
    expect(() =>
      validateGroupQuery({ classes: ["pumps"], components: [{ kind: "processor", type: PUBLISH_KAFKA }] }),
    ).not.toThrow();
    expect(() => validateGroupQuery({ classes: ["no class"] })).toThrow(/"no class" is no class name/);
    expect(() => validateGroupQuery({ manifestIds: ["abc"] })).toThrow(/"abc" is no manifest id/);
    expect(() => validateGroupQuery({ agentVersion: { atLeast: "3", below: "2" } })).toThrow(
      /agentVersion: no version is at least 3 and below 2/,
    );
    expect(() =>
      validateGroupQuery({ components: [{ kind: "processor", type: GENERATE, version: { atLeast: "x" } }] }),
    ).toThrow(/components\[0\]\.version: "atLeast" is not a version/);
    expect(() => validateGroupQuery({ seenWithinMinutes: 5, silentForMinutes: 10 })).toThrow(
      /no agent is seen/,
    );
    expect(() => validateGroupQuery({ labels: ["bad key!"] })).toThrow(/Label key/);
  });
});

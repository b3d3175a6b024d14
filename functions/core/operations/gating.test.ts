import { describe, expect, it } from "vitest";
import { type AgentBuild, refusalOf } from "./gating.js";

const java = (version: string | undefined): AgentBuild => ({
  agentType: "minifi-java",
  version,
  supportedOperations: { SYNC: ["RESOURCE"], UPDATE: ["ASSET", "CONFIGURATION"] },
});
const cpp: AgentBuild = {
  agentType: "cpp",
  version: "0.99.2",
  supportedOperations: { SYNC: ["RESOURCE"], UPDATE: ["ASSET"] },
};
const sync = { operation: "SYNC", operand: "RESOURCE", args: {} };
const updateAsset = (file: string) => ({
  operation: "UPDATE",
  operand: "ASSET",
  args: { file, url: "https://agents.example/c2/api/assets/x/content", forceDownload: "false" },
});

describe("gating operations by agent type and version", () => {
  it("sends DESCRIBE MANIFEST to every agent, its manifest known or not: every C2 agent takes it", () => {
    const describeManifest = { operation: "DESCRIBE", operand: "MANIFEST" };
    expect(refusalOf(undefined, describeManifest)).toBeUndefined();
    expect(
      refusalOf({ ...cpp, supportedOperations: { UPDATE: ["ASSET"] } }, describeManifest),
    ).toBeUndefined();
    expect(refusalOf(java("1.28.1"), { operation: "describe", operand: "manifest" })).toBeUndefined();
  });

  it("needs the manifest, and the operation listed in it", () => {
    expect(refusalOf(undefined, sync)).toMatch(/does not know its manifest yet/);
    expect(refusalOf({ ...cpp, supportedOperations: { UPDATE: ["ASSET"] } }, sync)).toBe(
      "its manifest does not list SYNC RESOURCE",
    );
  });

  it("sends SYNC RESOURCE's object args to MiNiFi Java 2.0 and later only, and says why to an older one", () => {
    expect(refusalOf(java("2.0.0"), sync)).toBeUndefined();
    expect(refusalOf(java("2.11.0-SNAPSHOT"), sync)).toBeUndefined();
    expect(refusalOf(java("1.28.1"), sync)).toMatch(
      /MiNiFi Java reads SYNC RESOURCE's object args from 2.0 on.*\(it runs minifi-java 1.28.1\)/,
    );
    expect(refusalOf(java(undefined), sync)).toMatch(/of unknown version/);
    expect(refusalOf(cpp, sync)).toBeUndefined();
  });

  it("refuses UPDATE ASSET of a file name with a dot to MiNiFi Java 2.11 and later, which would ignore it", () => {
    expect(refusalOf(java("2.10.0"), updateAsset("model.onnx"))).toBeUndefined();
    expect(refusalOf(java("2.11.0"), updateAsset("model"))).toBeUndefined();
    expect(refusalOf(java("2.11.0"), updateAsset("model.onnx"))).toMatch(
      /2.11 and later refuse an UPDATE ASSET file name with a dot.*\(SYNC RESOURCE\) instead/,
    );
    expect(refusalOf(cpp, updateAsset("model.onnx"))).toBeUndefined();
  });
});

describe("TRANSFER DEBUG", () => {
  const transfer = { operation: "TRANSFER", operand: "DEBUG", args: { target: "https://agents.example/x" } };
  const listing = (build: AgentBuild): AgentBuild => ({
    ...build,
    supportedOperations: { ...build.supportedOperations, TRANSFER: ["DEBUG"] },
  });

  it("goes to any version of either agent whose manifest lists it, and to none that does not", () => {
    for (const build of [java("2.0.0"), java("2.3.0"), java("2.11.0"), cpp])
      expect(refusalOf(listing(build), transfer)).toBeUndefined();
    expect(refusalOf(java("2.3.0"), transfer)).toBe("its manifest does not list TRANSFER DEBUG");
  });
});

describe("operations only MiNiFi C++ has", () => {
  const everything = {
    DESCRIBE: ["CONFIGURATION", "CORECOMPONENTSTATE", "JSTACK", "MANIFEST", "METRICS"],
    CLEAR: ["CONNECTION", "CORECOMPONENTSTATE", "REPOSITORIES"],
    START: ["C2", "FLOW", "FLOWCONTROLLER", "PROCESSOR", "4FE2D51D-076A-49B0-88DE-5CF5ADF52B8F"],
    STOP: ["C2", "FLOW", "FLOWCONTROLLER", "PROCESSOR", "4FE2D51D-076A-49B0-88DE-5CF5ADF52B8F"],
  };
  const listing = (agentType: string | undefined, version: string | undefined): AgentBuild => ({
    agentType,
    version,
    supportedOperations: everything,
  });
  const cppOnly = [
    ["DESCRIBE", "METRICS"],
    ["DESCRIBE", "CONFIGURATION"],
    ["DESCRIBE", "JSTACK"],
    ["DESCRIBE", "CORECOMPONENTSTATE"],
    ["CLEAR", "CORECOMPONENTSTATE"],
    ["CLEAR", "REPOSITORIES"],
    ["START", "4FE2D51D-076A-49B0-88DE-5CF5ADF52B8F"],
    ["STOP", "FLOWCONTROLLER"],
    ["STOP", "C2"],
  ] as const;

  it.each(cppOnly)(
    "never sends %s %s to MiNiFi Java, even when its manifest lists it, and says why",
    (operation, operand) => {
      expect(refusalOf(listing("minifi-java", "2.11.0"), { operation, operand })).toBe(
        `only MiNiFi C++ takes ${operation} ${operand}: MiNiFi Java drops the whole heartbeat reply over it (it runs minifi-java 2.11.0)`,
      );
      expect(refusalOf(listing(undefined, undefined), { operation, operand })).toMatch(
        /^only MiNiFi C\+\+ takes .*\(it runs an agent of unknown type of unknown version\)$/,
      );
      expect(refusalOf(listing("cpp", "0.99.2"), { operation, operand })).toBeUndefined();
    },
  );

  it("still needs the C++ agent's manifest to list the operation", () => {
    expect(
      refusalOf(
        { ...cpp, supportedOperations: { DESCRIBE: ["MANIFEST"] } },
        { operation: "DESCRIBE", operand: "METRICS" },
      ),
    ).toBe("its manifest does not list DESCRIBE METRICS");
  });
});

describe("START and STOP PROCESSOR", () => {
  const start = { operation: "START", operand: "PROCESSOR", args: { processorId: "p-1" } };
  const stop = { ...start, operation: "STOP" };
  const javaAt = (version: string | undefined): AgentBuild => ({
    agentType: "minifi-java",
    version,
    supportedOperations: { START: ["FLOW", "PROCESSOR"], STOP: ["FLOW", "PROCESSOR"] },
  });

  it("go to MiNiFi Java 2.7 and later only, since an older one drops the whole reply", () => {
    expect(refusalOf(javaAt("2.7.0"), start)).toBeUndefined();
    expect(refusalOf(javaAt("2.11.0"), stop)).toBeUndefined();
    expect(refusalOf(javaAt("2.6.9"), start)).toBe(
      "MiNiFi Java starts and stops a processor from 2.7 on, and an older one drops the whole reply (it runs minifi-java 2.6.9)",
    );
    expect(refusalOf(javaAt("2.3.0"), stop)).toMatch(/from 2.7 on/);
    expect(refusalOf(javaAt(undefined), start)).toMatch(/from 2.7 on.*of unknown version\)$/);
  });

  it("and START/STOP FLOW to any Java agent that lists it", () => {
    expect(refusalOf(javaAt("2.3.0"), { operation: "STOP", operand: "FLOW" })).toBeUndefined();
  });
});

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

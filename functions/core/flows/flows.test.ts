import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { example } from "../../../scripts/common/c2-examples.js";
import { cppYamlFlow } from "../../../scripts/test-support/flow-fixtures.js";
import type { JsonObject } from "../json.js";
import { detailOf } from "../manifests/catalog.js";
import { isComplete, missingTypes } from "./compatibility.js";
import { readFlowDocument } from "./document.js";

const MAX_BYTES = 64 * 1024;
const bytesOf = (text: string) => new TextEncoder().encode(text);
const read = (text: string) => readFlowDocument(bytesOf(text), MAX_BYTES);

/** A MiNiFi Java 2.x flow.json: services at the controller level and in groups, one nested group. */
const javaFlow = {
  encodingVersion: { majorVersion: 2, minorVersion: 0 },
  maxTimerDrivenThreadCount: 1,
  controllerServices: [
    { identifier: "ssl", type: "org.apache.nifi.ssl.StandardRestrictedSSLContextService" },
  ],
  rootGroup: {
    identifier: "root",
    processors: [{ identifier: "gen", type: "org.apache.nifi.processors.standard.GenerateFlowFile" }],
    controllerServices: [],
    processGroups: [
      {
        identifier: "inner",
        processors: [{ identifier: "log", type: "org.apache.nifi.processors.standard.LogAttribute" }],
        controllerServices: [{ identifier: "json", type: "org.apache.nifi.json.JsonTreeReader" }],
        processGroups: [],
      },
    ],
  },
};

describe("reading a flow document", () => {
  it("detects a MiNiFi Java flow.json and reads its types from every group and the controller level", async () => {
    const text = JSON.stringify(javaFlow);
    const document = await read(text);
    expect(document).toEqual({
      hash: createHash("sha256").update(text).digest("hex"),
      format: "nifi-json",
      contentType: "application/json",
      sizeBytes: Buffer.byteLength(text),
      processorTypes: [
        "org.apache.nifi.processors.standard.GenerateFlowFile",
        "org.apache.nifi.processors.standard.LogAttribute",
      ],
      controllerServiceTypes: [
        "org.apache.nifi.json.JsonTreeReader",
        "org.apache.nifi.ssl.StandardRestrictedSSLContextService",
      ],
      assetIds: [],
      parameters: [],
    });
  });

  it("reads the assets a flow names, each once, wherever a property names them", async () => {
    const model = "a".repeat(64);
    const labels = "b".repeat(64);
    const flow = structuredClone(javaFlow) as JsonObject;
    Object.assign((flow.rootGroup as { processors: JsonObject[] }).processors[0] as JsonObject, {
      properties: {
        Model: `@{asset-id:${model}}`,
        Labels: `@{asset-id:${labels}}`,
        Again: `@{asset-id:${model}}`,
      },
    });
    expect((await read(JSON.stringify(flow))).assetIds).toEqual([model, labels]);
    expect((await read(`${cppYamlFlow}\n# model: @{asset-id:${labels}}\n`)).assetIds).toEqual([labels]);
  });

  it("detects the MiNiFi C++ YAML configuration, with class or type, in nested process groups", async () => {
    expect(await read(cppYamlFlow)).toMatchObject({
      format: "minifi-yaml",
      contentType: "application/yaml",
      processorTypes: ["GenerateFlowFile", "LogAttribute", "org.apache.nifi.minifi.processors.PutFile"],
      controllerServiceTypes: ["SSLContextService"],
    });
  });

  it("detects the MiNiFi C++ JSON configuration", async () => {
    const text = JSON.stringify({
      "Flow Controller": { name: "pumps" },
      Processors: [{ name: "generate", class: "GenerateFlowFile" }],
      "Controller Services": [],
    });
    expect(await read(text)).toMatchObject({
      format: "minifi-json",
      contentType: "application/json",
      processorTypes: ["GenerateFlowFile"],
      controllerServiceTypes: [],
    });
  });

  it("addresses a version by the bytes as uploaded: the same flow formatted differently is another version", async () => {
    const compact = await read(JSON.stringify(javaFlow));
    const pretty = await read(JSON.stringify(javaFlow, null, 2));
    expect(pretty.hash).not.toBe(compact.hash);
    expect(pretty.processorTypes).toEqual(compact.processorTypes);
  });

  it.each([
    ["empty", "", /needs a flow document/],
    ["broken JSON", '{"rootGroup": ', /not valid JSON/],
    ["broken YAML", "Flow Controller: [unclosed", /neither JSON nor valid YAML/],
    ["a JSON array", "[1, 2]", /neither JSON nor valid YAML|must be a JSON or YAML object/],
    ["a scalar", "just words", /must be a JSON or YAML object/],
    ["no known layout", '{"processors": []}', /neither a rootGroup/],
    ["a rootGroup in YAML", "rootGroup:\n  processors: []\n", /neither a rootGroup/],
  ])("refuses %s with invalid_request", async (_label, text, message) => {
    await expect(read(text)).rejects.toThrow(
      expect.objectContaining({ code: "invalid_request", message: expect.stringMatching(message) }),
    );
  });

  it("refuses what is not UTF-8, and what is over the cap with payload_too_large", async () => {
    await expect(readFlowDocument(Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]), MAX_BYTES)).rejects.toThrow(
      expect.objectContaining({ code: "invalid_request", message: "The flow is not UTF-8 text" }),
    );
    const large = JSON.stringify({ ...javaFlow, padding: "x".repeat(MAX_BYTES) });
    await expect(read(large)).rejects.toThrow(expect.objectContaining({ code: "payload_too_large" }));
  });

  it("stops a YAML alias bomb and process groups nested past the bound", async () => {
    const aliases = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let level = 1; level < 8; level++) {
      aliases.push(
        `l${level}: &l${level} [${Array(10)
          .fill(level === 1 ? "*a" : `*l${level - 1}`)
          .join(", ")}]`,
      );
    }
    await expect(read(`Flow Controller: {}\n${aliases.join("\n")}\n`)).rejects.toThrow(
      expect.objectContaining({ code: "invalid_request" }),
    );
    let group: JsonObject = { processors: [] };
    for (let level = 0; level < 80; level++) group = { processors: [], processGroups: [group] };
    await expect(read(JSON.stringify({ rootGroup: group }))).rejects.toThrow(
      expect.objectContaining({
        code: "invalid_request",
        message: expect.stringMatching(/deeper than 64 levels/),
      }),
    );
  });
});

describe("a flow against a manifest", () => {
  const javaManifest = detailOf(
    (example("java-2.3.0/ack-describe-manifest.json").agentInfo as JsonObject).agentManifest as JsonObject,
  );
  const cppManifest = detailOf(
    (example("cpp/heartbeat-full.json").agentInfo as JsonObject).agentManifest as JsonObject,
  );

  it("matches Java's fully qualified types exactly and names what the real Java manifest lacks", async () => {
    const flow = await read(JSON.stringify(javaFlow));
    const generateOnly = {
      processorTypes: ["org.apache.nifi.processors.standard.GenerateFlowFile"],
      controllerServiceTypes: [],
    };
    expect(isComplete(missingTypes(generateOnly, javaManifest))).toBe(true);
    expect(missingTypes(flow, javaManifest)).toEqual({
      processorTypes: ["org.apache.nifi.processors.standard.LogAttribute"],
      controllerServiceTypes: [
        "org.apache.nifi.json.JsonTreeReader",
        "org.apache.nifi.ssl.StandardRestrictedSSLContextService",
      ],
    });
  });

  it("matches a C++ short class name against the last segment of the real all-extensions manifest's types", async () => {
    const flow = await read(cppYamlFlow);
    expect(missingTypes(flow, cppManifest)).toEqual({
      processorTypes: [],
      controllerServiceTypes: [],
    });
    // A qualified name must match exactly: the Java package is not the C++ one.
    expect(
      missingTypes(
        {
          processorTypes: ["org.apache.nifi.processors.standard.GenerateFlowFile", "NoSuchProcessor"],
          controllerServiceTypes: ["NoSuchService"],
        },
        cppManifest,
      ),
    ).toEqual({
      processorTypes: ["org.apache.nifi.processors.standard.GenerateFlowFile", "NoSuchProcessor"],
      controllerServiceTypes: ["NoSuchService"],
    });
  });
});

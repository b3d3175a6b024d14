import { readdirSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { generateValidators } from "../../scripts/build/schema-validators.js";
import { example } from "../../scripts/common/c2-examples.js";
import { consoleOperations } from "./console-openapi.js";
import { assertValid, Validators } from "./schemas.js";

const examplesRoot = fileURLToPath(new URL("../../schemas/c2/examples/", import.meta.url));
const examples = (readdirSync(examplesRoot, { recursive: true }) as string[]).filter((name) =>
  name.endsWith(".json"),
);

describe("the C2 schemas", () => {
  it("find every example the project keeps", () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
  });

  it.each(examples.filter((name) => name.includes("heartbeat")))("accept the heartbeat %s", (name) => {
    expect(Validators.heartbeat(example(name)), JSON.stringify(Validators.heartbeat.errors)).toBe(true);
  });

  it.each(examples.filter((name) => name.includes("ack-")))("accept the acknowledgement %s", (name) => {
    expect(Validators.acknowledge(example(name)), JSON.stringify(Validators.acknowledge.errors)).toBe(true);
  });

  it.each(examples.filter((name) => name.includes("manifest-bundles")))(
    "accept the bundles %s as a heartbeat's manifest",
    (name) => {
      const heartbeat = example("cpp/heartbeat-light.json");
      heartbeat.agentInfo = { ...(heartbeat.agentInfo as object), agentManifest: { bundles: example(name) } };
      expect(Validators.heartbeat(heartbeat)).toBe(true);
    },
  );

  it("refuse a heartbeat whose manifest hash could not be a key", () => {
    const heartbeat = example("java-2.3.0/heartbeat-light.json");
    (heartbeat.agentInfo as Record<string, unknown>).agentManifestHash = "a b#c";
    expect(() => assertValid(Validators.heartbeat, heartbeat, "heartbeat")).toThrow(/agentManifestHash/);
  });

  it("refuse an ack without a known state", () => {
    expect(Validators.acknowledge({ operationId: "x", operationState: { state: "DONE" } })).toBe(false);
  });

  it("describe the reply Beacon sends", () => {
    expect(
      Validators.heartbeatResponse({
        requestedOperations: [{ identifier: "op-1", operation: "DESCRIBE", operand: "MANIFEST" }],
      }),
    ).toBe(true);
    expect(
      Validators.heartbeatResponse({ requestedOperations: [{ identifier: "op-1", operation: "describe" }] }),
    ).toBe(false);
  });
});

// Compiling every schema takes a few seconds of CPU: more than a test's default time on a busy machine.
const COMPILE_EVERY_SCHEMA_MS = 60_000;

describe("the compiled validators and the console's document as text", () => {
  it(
    "are made from the schemas as they are now (npm run schemas:validators rewrites them)",
    async () => {
      const files = await generateValidators();
      const folders = ["compiled-console-parameters/", "compiled-console-documents/"].map((folder) =>
        fileURLToPath(new URL(folder, import.meta.url)),
      );
      const perOperation = files.filter(({ file }) => folders.some((folder) => file.startsWith(folder)));
      // One module per operation in each, and none left of an operation the document no longer has.
      for (const folder of folders) {
        const inFolder = perOperation.filter(({ file }) => file.startsWith(folder));
        expect(inFolder.map(({ file }) => file.slice(folder.length)).sort()).toEqual(
          (await readdir(folder)).sort(),
        );
        expect(inFolder).toHaveLength(consoleOperations.length);
      }
      expect(
        files.filter((file) => !perOperation.includes(file)).map(({ file }) => file.replace(/^.*\//, "")),
      ).toEqual([
        "compiled-validators.js",
        "compiled-validators.d.ts",
        "compiled-event-validators.js",
        "compiled-event-validators.d.ts",
        "compiled-console-operations.js",
        "compiled-console-operations.d.ts",
        "compiled-console-openapi-text.js",
        "compiled-console-openapi-text.d.ts",
      ]);
      for (const { file, code } of files) expect(await readFile(file, "utf8"), file).toBe(code);
    },
    COMPILE_EVERY_SCHEMA_MS,
  );
});

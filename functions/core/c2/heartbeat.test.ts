import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { example } from "../../../scripts/common/c2-examples.js";
import type { JsonObject } from "../json.js";
import { FLOW_ID_MAX_LENGTH, HotDetailLimits, normalizeHeartbeat } from "./heartbeat.js";

describe("what a heartbeat shows of its agent's effects", () => {
  it("reads the C++ agent's run statuses upper-cased, its 'null' resource hash as none, its load and checksums", () => {
    const body = example("cpp/heartbeat-light.json");
    const flowInfo = body.flowInfo as JsonObject;
    flowInfo.runStatus = "Running";
    (flowInfo.processorStatuses as JsonObject[]).push(
      { id: "p-2", runStatus: "Stopped" },
      { runStatus: "RUNNING" },
    );
    body.configurationChecksums = { SHA256: { "minifi.properties": "ab12", "config.yml": "cd34" } };
    const heartbeat = normalizeHeartbeat(body);
    expect(heartbeat).toMatchObject({
      runStatus: "RUNNING",
      processors: [
        { id: "4fe2d51d-076a-49b0-88de-5cf5adf52b8f", runStatus: "RUNNING" },
        { id: "p-2", runStatus: "STOPPED" },
      ],
      resourceHash: null,
      system: { cpuUtilization: 0.06179499754781756, cpuLoadAverage: 1.271484375, memoryUsage: 12681670656 },
      configurationChecksums: { SHA256: { "minifi.properties": "ab12", "config.yml": "cd34" } },
    });
    // The processor without an id is no proof of anything.
    expect(heartbeat.processors).toHaveLength(2);
  });

  it("keeps the Java agent's own resource hash, and tells which queues are at their limit", () => {
    const body = example("java-2.3.0/heartbeat-light.json");
    const queues = (body.flowInfo as JsonObject).queues as JsonObject;
    queues.full = { size: 10_000, sizeMax: 10_000, dataSize: 1, dataSizeMax: 1_000 };
    queues.unbounded = { size: 5, sizeMax: 0 };
    const heartbeat = normalizeHeartbeat(body);
    expect(heartbeat.resourceHash).toBe("0");
    expect(heartbeat.queues?.map(({ id, backPressure }) => ({ id, backPressure }))).toEqual([
      { id: "conn-1", backPressure: false },
      { id: "full", backPressure: true },
      { id: "unbounded", backPressure: undefined },
    ]);
    expect(heartbeat.status?.backPressuredQueues).toBe(1);
    expect(heartbeat.system).toEqual({ cpuLoadAverage: 0.625 });
  });

  it("leaves out what a minimized C++ heartbeat leaves out, so that the last known values stay", () => {
    const body = example("cpp/heartbeat-light.json");
    delete body.flowInfo;
    delete body.resourceInfo;
    delete body.deviceInfo;
    const heartbeat = normalizeHeartbeat(body);
    for (const field of [
      "runStatus",
      "processors",
      "resourceHash",
      "system",
      "configurationChecksums",
    ] as const)
      expect(heartbeat[field]).toBeUndefined();
  });

  it("bounds what it keeps, whatever the flow's size", () => {
    const body = example("cpp/heartbeat-light.json");
    (body.flowInfo as JsonObject).processorStatuses = Array.from({ length: 500 }, (_, index) => ({
      id: `p-${index}`,
      runStatus: "RUNNING",
    }));
    body.configurationChecksums = Object.fromEntries(
      Array.from({ length: 50 }, (_, index) => [
        `ALG${index}`,
        Object.fromEntries(Array.from({ length: 50 }, (_, file) => [`f-${file}`, "x".repeat(1_000)])),
      ]),
    );
    const heartbeat = normalizeHeartbeat(body);
    expect(heartbeat.processors).toHaveLength(HotDetailLimits.processors);
    const algorithms = Object.values(heartbeat.configurationChecksums ?? {});
    expect(algorithms).toHaveLength(HotDetailLimits.checksums);
    for (const files of algorithms) {
      expect(Object.keys(files)).toHaveLength(HotDetailLimits.checksums);
      for (const digest of Object.values(files)) expect(digest.length).toBeLessThanOrEqual(200);
    }
  });
});

describe("a heartbeat whose fields are not what agents send", () => {
  const longText = "x".repeat(100_000);

  it("cuts long texts, drops values of the wrong type and flow ids longer than Beacon keeps", () => {
    const body = example("java-2.3.0/heartbeat-light.json");
    body.deviceInfo = {
      identifier: longText,
      networkInfo: { hostname: longText, ipAddress: 12 },
      systemInfo: { operatingSystem: null, machineArch: { arm: true }, vCores: 5e-323, physicalMem: "1024" },
    };
    const flowInfo = body.flowInfo as JsonObject;
    flowInfo.flowId = undefined;
    flowInfo.versionedFlowSnapshotURI = { flowId: "f".repeat(FLOW_ID_MAX_LENGTH + 1) };
    flowInfo.runStatus = longText;
    flowInfo.queues = { [longText]: { name: 5, size: "many" } };
    (body.agentInfo as JsonObject).status = {
      repositories: Object.fromEntries(
        Array.from({ length: 50 }, (_, index) => [`${index}${longText}`, { size: [] }]),
      ),
    };
    const heartbeat = normalizeHeartbeat(body);
    const short = "x".repeat(HotDetailLimits.textLength - 1).concat("…");
    expect(heartbeat.device).toEqual({
      deviceId: short,
      hostname: short,
      ipAddress: "12",
      physicalMemory: 1024,
    });
    expect(heartbeat.flowId).toBeUndefined();
    expect(heartbeat.runStatus).toBe(short.toUpperCase());
    expect(heartbeat.queues).toEqual([{ id: short, name: "5" }]);
    expect(heartbeat.repositories).toHaveLength(HotDetailLimits.repositories);
    for (const repository of heartbeat.repositories ?? [])
      expect(repository.name.length).toBe(HotDetailLimits.textLength);
  });

  it("reads any JSON in the sections as values of their types, within their bounds", () => {
    const section = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 }));
    fc.assert(
      fc.property(
        fc.record(
          {
            agentInfo: fc.record({ status: section, agentClass: fc.jsonValue() }, { requiredKeys: [] }),
            deviceInfo: fc.record(
              { identifier: fc.jsonValue(), systemInfo: section, networkInfo: section },
              { requiredKeys: [] },
            ),
            flowInfo: fc.record(
              {
                queues: section,
                processorBulletins: fc.array(fc.jsonValue({ maxDepth: 3 })),
                processorStatuses: fc.array(fc.jsonValue({ maxDepth: 3 })),
                versionedFlowSnapshotURI: fc.jsonValue(),
              },
              { requiredKeys: [] },
            ),
            resourceInfo: section,
            configurationChecksums: fc.jsonValue({ maxDepth: 3 }),
          },
          { requiredKeys: [] },
        ),
        (body) => {
          const heartbeat = normalizeHeartbeat(body as JsonObject);
          for (const value of Object.values(heartbeat.device ?? {}))
            if (typeof value === "string")
              expect(value.length).toBeLessThanOrEqual(HotDetailLimits.textLength);
            else expect(Number.isSafeInteger(value) && (value as number) >= 0).toBe(true);
          for (const queue of heartbeat.queues ?? []) expect(queue.id).toBeTypeOf("string");
          for (const bulletin of heartbeat.bulletins ?? [])
            expect(bulletin.message?.length ?? 0).toBeLessThanOrEqual(HotDetailLimits.messageLength);
          expect(heartbeat.repositories?.length ?? 0).toBeLessThanOrEqual(HotDetailLimits.repositories);
          expect(heartbeat.flowId?.length ?? 0).toBeLessThanOrEqual(FLOW_ID_MAX_LENGTH);
          for (const files of Object.values(heartbeat.configurationChecksums ?? {}))
            for (const digest of Object.values(files)) expect(digest).toBeTypeOf("string");
        },
      ),
      { seed: 20_240_601, numRuns: 300 },
    );
  });
});

import { describe, expect, it } from "vitest";
import { example } from "../../../scripts/common/c2-examples.js";
import type { JsonObject } from "../json.js";
import { HotDetailLimits, normalizeHeartbeat } from "./heartbeat.js";

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

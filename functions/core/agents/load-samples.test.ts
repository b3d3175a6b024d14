import { describe, expect, it } from "vitest";
import { loadSampleOf, loadSampleOfText, loadSampleText } from "./load-samples.js";

describe("an agent's load samples", () => {
  it("takes a MiNiFi Java heartbeat's load average and a C++ heartbeat's CPU, memory and queues, rounded as shown", () => {
    expect(loadSampleOf(1_000, { queuedFlowFiles: 3, queuedBytes: 30 }, { cpuLoadAverage: 0.625 })).toEqual({
      at: 1_000,
      cpuLoadAverage: 0.63,
      queuedFlowFiles: 3,
      queuedBytes: 30,
    });
    expect(
      loadSampleOf(2_000, undefined, {
        cpuUtilization: 0.06179499754781756,
        cpuLoadAverage: 1.271484375,
        memoryUsage: 12681670656,
      }),
    ).toEqual({ at: 2_000, cpuUtilization: 0.062, cpuLoadAverage: 1.27, memoryUsage: 12681670656 });
  });

  it("takes none of a heartbeat that reports neither load nor queues", () => {
    expect(loadSampleOf(1_000, { uptime: 5 }, undefined)).toBeUndefined();
    expect(loadSampleOf(1_000)).toBeUndefined();
  });

  it("keeps a sample as short text and reads it back, absent figures absent", () => {
    const sample = { at: 1764470000000, cpuLoadAverage: 0.625, queuedFlowFiles: 0, queuedBytes: 30 };
    const text = loadSampleText(sample);
    expect(text).toBe("1764470000000,,0.625,,0,30");
    expect(loadSampleOfText(text)).toEqual(sample);
  });

  it("reads no sample of text it did not write", () => {
    expect(loadSampleOfText("")).toBeUndefined();
    expect(loadSampleOfText("soon,1,2,3,4,5")).toBeUndefined();
    expect(loadSampleOfText("1000,1,2")).toBeUndefined();
  });
});

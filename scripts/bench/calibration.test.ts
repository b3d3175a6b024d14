import { describe, expect, it } from "vitest";
import {
  type CalibratedMachine,
  calibrationRatios,
  formatCalibration,
  readReference,
} from "./calibration.js";

const reference: CalibratedMachine = {
  machine: { cpu: "AMD EPYC", cores: 2, node: "v22.11.0" },
  calibration: { handshakeCpuMs: 2, manifestParseCpuMs: 5, sha256CpuMsPerMiB: 1.5 },
  loadAverage1m: 1.2,
  date: "2026-11-30",
};
const slower: CalibratedMachine = {
  machine: { cpu: "Intel Xeon", cores: 2, node: "v22.11.0" },
  calibration: { handshakeCpuMs: 3.8, manifestParseCpuMs: 5.5, sha256CpuMsPerMiB: 1.5 },
  loadAverage1m: 4.96,
  date: "2026-12-01",
};

describe("the benchmarks' calibration", () => {
  it("gives each figure over the reference's, and their geometric mean", () => {
    const ratios = calibrationRatios(slower.calibration, reference.calibration);
    expect(ratios.handshakeCpuMs).toBeCloseTo(1.9, 9);
    expect(ratios.manifestParseCpuMs).toBeCloseTo(1.1, 9);
    expect(ratios.sha256CpuMsPerMiB).toBe(1);
    expect(ratios.overall).toBeCloseTo((1.9 * 1.1) ** (1 / 3), 9);
    expect(calibrationRatios(reference.calibration, reference.calibration).overall).toBe(1);
  });

  it("prints the figures, their ratios, the load and the machine they are compared with in one line", () => {
    expect(formatCalibration(slower, reference)).toBe(
      "calibration: 3.80 ms CPU per mutual-TLS handshake (×1.90), 5.50 ms per C++ manifest parse (×1.10), " +
        "1.50 ms per MiB of SHA-256 (×1.00); load average 5.0; ×1.28 the reference machine " +
        "(2 × AMD EPYC, Node v22.11.0, load average 1.2, 2026-11-30)",
    );
  });

  it("says how much dearer work is just after the process idled, where it was measured", () => {
    expect(formatCalibration({ ...slower, wakeAfterIdle: 3.256 }, reference)).toMatch(
      /the reference machine \(2 × AMD EPYC, Node v22\.11\.0, load average 1\.2, 2026-11-30\); work just after 1 ms idle takes ×3\.26 as long as back to back$/,
    );
  });

  it("says so when this machine runs another Node than the reference", () => {
    const onNode20 = { ...slower, machine: { ...slower.machine, node: "v20.20.2" } };
    expect(formatCalibration(onNode20, reference)).toMatch(
      /; Node v20\.20\.2 here, v22\.11\.0 in the reference: ratios across Node versions measure Node as much as the machine$/,
    );
    expect(formatCalibration(slower, reference)).not.toContain("in the reference:");
  });

  it("has a reference machine recorded, with every figure", () => {
    const recorded = readReference();
    expect(recorded.machine.cpu).not.toBe("");
    expect(recorded.machine.cores).toBeGreaterThan(0);
    for (const value of Object.values(recorded.calibration)) expect(value).toBeGreaterThan(0);
  });
});

import { defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./scripts/test-support/longest-first.js";

export default defineConfig({
  test: {
    // Vitest's default on two cores is one file at a time (cores − 1); most integration files wait on their
    // backends, a browser or a timer, so two at a time take a little over half as long. Two on any machine: the
    // suites are known to run side by side two at a time, not more.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: "unit",
          include: [
            "cli/**/*.test.ts",
            "functions/**/*.test.ts",
            "scripts/**/*.test.ts",
            "web/test/**/*.test.ts",
          ],
          // What the function construct sets on AWS: without a namespace Powertools warns at every metrics flush.
          env: { POWERTOOLS_METRICS_NAMESPACE: "Beacon", POWERTOOLS_SERVICE_NAME: "beacon-unit-tests" },
        },
      },
      {
        test: {
          name: "infra",
          include: ["infra/**/*.test.ts"],
          globalSetup: ["infra/test/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "integration",
          include: [
            "cli/**/*.itest.ts",
            "functions/**/*.itest.ts",
            "scripts/**/*.itest.ts",
            "loadtests/**/*.itest.ts",
            "web/test/**/*.itest.ts",
          ],
          globalSetup: ["scripts/test-support/global-setup.ts"],
          setupFiles: ["scripts/test-support/orphan-guard.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});

import { defineConfig } from "vitest/config";

// The AWS SDK warns once per process that its releases from 2027 will need Node 22; a test run starts many
// processes on Node 20, the version Beacon supports locally. This is the SDK's own switch for that one warning,
// set here so that vitest, its workers and every process they start inherit it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["functions/**/*.test.ts", "scripts/**/*.test.ts"],
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
          include: ["functions/**/*.itest.ts", "scripts/**/*.itest.ts", "loadtests/**/*.itest.ts"],
          globalSetup: ["scripts/test-support/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});

/**
 * Preloaded (node --require) into the Artillery process by run-scenario.ts. Artillery 2.0 sends a
 * "test run" event to PostHog even with ARTILLERY_DISABLE_TELEMETRY set (only its properties are
 * dropped), and waits up to ~20 s for the send to fail on a machine without internet. A no-op client
 * in place of posthog-node keeps every run off the network.
 */
const Module = require("node:module");
const path = require("node:path");

const artilleryDir = path.dirname(require.resolve("artillery/package.json"));
const posthogPath = require.resolve("posthog-node", { paths: [artilleryDir] });

class OfflinePostHog {
  capture() {}
  async shutdownAsync() {}
}

const stub = new Module(posthogPath);
stub.filename = posthogPath;
stub.loaded = true;
stub.exports = { PostHog: OfflinePostHog };
require.cache[posthogPath] = stub;

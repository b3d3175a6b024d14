import { describe, expect, it } from "vitest";
import { measureBytes } from "./measure.js";

// The agent API's heartbeat measured over a redis-server of its own (scripts/capacity/measure.ts).
describe("the byte measurements", () => {
  it("measure the steady heartbeat with Beacon's own code", async () => {
    const measured = await measureBytes();
    expect(measured.responseBodyBytes?.value).toBe(Buffer.byteLength('{"requestedOperations":[]}'));
    expect(measured.indexesHoldingAgentItem?.value).toBe(2);
    // The C++ agent's manifest keeps the registry profile over 1 KB: 2 write units per copy.
    expect(measured.agentItemBytes?.value).toBeGreaterThan(1024);
    // The last-seen item a checkpoint writes is 1 write unit, and in no index.
    expect(measured.lastSeenItemBytes?.value).toBeLessThan(1024);
    expect(measured.indexesHoldingLastSeenItem?.value).toBe(0);
    expect(measured.eventBytes?.value).toBeGreaterThan(0);
    expect(measured.metricLineBytesPerHeartbeat?.value).toBeGreaterThan(0);
  });
});

import { describe, expect, it } from "vitest";
import { MemoryEventSink } from "../../adapters/memory/event-sink.js";
import { PublishNotAwaited } from "../events/publishing.js";
import { makeDownloadMeter } from "./download-meter.js";

const AT = Date.UTC(2026, 10, 30, 12);

function meter() {
  const events = new MemoryEventSink();
  let next = 0;
  const meterDownload = makeDownloadMeter({
    events,
    clock: { now: () => AT },
    ids: { newId: () => `e${++next}` },
  });
  return { events, meterDownload };
}

describe("download meter", () => {
  it("puts one event per download with its tenant, agent and bytes", async () => {
    const { events, meterDownload } = meter();
    const agent = { kind: "agent", tenant: "t1", agentId: "pump-1", serialNumber: "A1" } as const;
    expect(await meterDownload(agent, "asset", 1234, undefined)).toEqual({});
    expect(await meterDownload(agent, "asset", 1234, undefined)).toEqual({});
    expect(events.events).toEqual([
      {
        type: "download",
        version: 1,
        eventId: "e1",
        tenant: "t1",
        agentId: "pump-1",
        at: AT,
        what: "asset",
        bytesOut: 1234,
      },
      {
        type: "download",
        version: 1,
        eventId: "e2",
        tenant: "t1",
        agentId: "pump-1",
        at: AT,
        what: "asset",
        bytesOut: 1234,
      },
    ]);
  });

  it("names no agent for a fleet certificate", async () => {
    const { events, meterDownload } = meter();
    await meterDownload(
      { kind: "fleet", tenant: "t1", fleetName: "plant", serialNumber: "A1" },
      "flow",
      10,
      undefined,
    );
    expect(events.events[0]).not.toHaveProperty("agentId");
  });

  it("hands back the event the stream refused, or had not taken by the answer's time, without throwing", async () => {
    const { events, meterDownload } = meter();
    const fleet = { kind: "fleet", tenant: "t1", fleetName: "plant", serialNumber: "A1" } as const;
    events.failing = true;
    const refused = await meterDownload(fleet, "asset", 5, undefined);
    expect(refused.streamError).toBeInstanceOf(Error);
    expect(refused.unpublished).toMatchObject([{ type: "download", bytesOut: 5 }]);
    events.failing = false;
    events.stalled = true;
    const late = await meterDownload(fleet, "asset", 5, AT);
    expect(late.streamError).toBeInstanceOf(PublishNotAwaited);
    expect(late.unpublished).toHaveLength(1);
  });
});

import { describe, expect, it } from "vitest";
import { describeEvent } from "../src/agent-events.js";

const at = "2026-11-24T16:00:00.000Z";
const base = { eventId: "e1", agentId: "gateways-agent-001", at };

describe("an agent's events in words", () => {
  it("tells a registration from a heartbeat", () => {
    expect(describeEvent({ ...base, type: "heartbeat", firstSight: true, agentClass: "gateways" })).toEqual({
      kind: "registration",
      description: "Seen for the first time in class gateways: registered.",
    });
    expect(describeEvent({ ...base, type: "heartbeat", firstSight: false }).kind).toBe("heartbeat");
  });

  it("gives an acknowledgement's state and details, and says when it matched nothing Beacon sent", () => {
    expect(
      describeEvent({
        ...base,
        type: "ack",
        operationId: "op-1",
        state: "NOT_APPLIED",
        details: "disk full",
        matched: true,
      }),
    ).toEqual({
      kind: "acknowledgement",
      description: "Acknowledged operation op-1: NOT_APPLIED (disk full).",
    });
    expect(
      describeEvent({ ...base, type: "ack", operationId: "op-2", state: "FULLY_APPLIED", matched: false })
        .description,
    ).toBe("Acknowledged operation op-2: FULLY_APPLIED. It matches no operation Beacon sent.");
  });

  it("gives an operation's change of state from and to, how it was confirmed and why it failed", () => {
    expect(
      describeEvent({
        ...base,
        type: "operation",
        operationId: "op-1",
        operation: "UPDATE",
        operand: "PROPERTIES",
        from: "delivered",
        state: "done",
        confirmedBy: "ack",
        ackState: "FULLY_APPLIED",
      }),
    ).toEqual({
      kind: "operation",
      description: "UPDATE PROPERTIES: delivered → done, confirmed by its acknowledgement (FULLY_APPLIED).",
    });
    expect(
      describeEvent({
        ...base,
        type: "operation",
        operation: "DESCRIBE",
        operand: "MANIFEST",
        state: "queued",
      }).description,
    ).toBe("DESCRIBE MANIFEST: now queued.");
    expect(
      describeEvent({
        ...base,
        type: "operation",
        operation: "TRANSFER",
        from: "awaiting_effect",
        state: "timed_out",
        reason: "no heartbeat showed the effect",
      }).description,
    ).toBe("TRANSFER: awaiting_effect → timed_out (no heartbeat showed the effect).");
  });

  it("gives a certificate's serial, expiry and warning window", () => {
    const described = describeEvent(
      {
        ...base,
        type: "certificate.expiring",
        serial: "1A2B",
        kind: "agent",
        notAfter: Date.parse("2026-12-01T12:00:00.000Z"),
        warningDays: 7,
      },
      "en-GB",
    );
    expect(described.kind).toBe("certificate expiring");
    expect(described.description).toMatch(/^Certificate 1A2B expires on .*2026.*, within 7 days\.$/);
  });

  it("says when an agent went offline and that it came back", () => {
    const offline = describeEvent(
      { ...base, type: "agent.offline", lastSeen: Date.parse("2026-12-01T12:00:00.000Z") },
      "en-GB",
    );
    expect(offline.kind).toBe("offline");
    expect(offline.description).toMatch(/^Missed its heartbeats since .*2026.*: offline\.$/);
    expect(describeEvent({ ...base, type: "agent.online" }).kind).toBe("online");
  });

  it("does not fail on an event type it does not know", () => {
    expect(describeEvent({ ...base, type: "something.new" }).kind).toBe("something.new");
  });
});

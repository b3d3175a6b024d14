import { describe, expect, it } from "vitest";
import { example } from "../../../scripts/common/c2-examples.js";
import { coreHarness } from "../../../scripts/test-support/core-harness.js";
import { type AgentCredential, canonicalSerial } from "./credentials.js";

const fleet: AgentCredential = {
  kind: "fleet",
  tenant: "acme",
  fleetName: "acme-fleet",
  serialNumber: "1A2B",
};
const otherFleet: AgentCredential = { ...fleet, serialNumber: "3C4D" };
const heartbeat = () => example("cpp/heartbeat-light.json");
const ack = () => ({ operationId: "op-1", operationState: { state: "FULLY_APPLIED" } });

describe("revoked certificates", () => {
  it("are refused before anything is recorded", async () => {
    const core = coreHarness();
    core.revocations.revoke("acme", "1A2B");
    await expect(core.recordHeartbeat(fleet, heartbeat())).rejects.toMatchObject({
      code: "certificate_revoked",
    });
    await expect(core.recordAck(fleet, ack())).rejects.toMatchObject({ code: "certificate_revoked" });
    expect(core.registry.records.size).toBe(0);
    expect(core.hotState.agents.size).toBe(0);
    expect(core.events.events).toEqual([]);
  });

  it("are refused from the registry while the cache is down", async () => {
    const core = coreHarness();
    core.revocations.revoke("acme", "1A2B");
    core.hotState.down = true;
    await expect(core.recordHeartbeat(fleet, heartbeat())).rejects.toMatchObject({
      code: "certificate_revoked",
    });
    expect((await core.recordHeartbeat(otherFleet, heartbeat())).reply).toBeDefined();
  });

  it("cost the steady path nothing once the cache holds the tenant's list", async () => {
    const core = coreHarness();
    core.revocations.revoke("acme", "FFFF");
    await core.recordHeartbeat(fleet, example("cpp/heartbeat-full.json"));
    const listReads = core.revocations.calls;
    const roundTrips = core.hotState.roundTrips;
    await core.recordHeartbeat(fleet, heartbeat());
    expect(core.revocations.calls).toBe(listReads);
    expect(core.hotState.roundTrips - roundTrips).toBe(1);
  });

  it("take effect as soon as the cache learns of them", async () => {
    const core = coreHarness();
    await core.recordHeartbeat(fleet, heartbeat());
    core.revocations.revoke("acme", "1A2B");
    core.hotState.revocationLists.get("acme")?.add("1A2B");
    await expect(core.recordHeartbeat(fleet, heartbeat())).rejects.toMatchObject({
      code: "certificate_revoked",
    });
  });
});

describe("canonicalSerial", () => {
  it("spells every serial one way", () => {
    expect(canonicalSerial("0a:1b:2c")).toBe("A1B2C");
    expect(canonicalSerial("00A1B2C")).toBe("A1B2C");
    expect(canonicalSerial("00")).toBe("0");
  });

  it("refuses what is not hexadecimal", () => {
    expect(() => canonicalSerial("12-34")).toThrow();
  });
});

import { describe, expect, it } from "vitest";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryDebugBundleContent, MemoryDebugBundles } from "../../adapters/memory/debug-bundles.js";
import { MemoryEventSink } from "../../adapters/memory/event-sink.js";
import { SequentialIds } from "../../adapters/memory/id-generator.js";
import { MemoryOperationStore } from "../../adapters/memory/operation-store.js";
import { MemoryRevocationList } from "../../adapters/memory/revocation-list.js";
import type { OperationState } from "../events/model.js";
import { operationIdOf } from "../operations/ids.js";
import type { OperationRecord } from "../operations/model.js";
import { makeDebugBundleIntake } from "./intake.js";
import { DEFAULT_DEBUG_BUNDLE_DAYS } from "./model.js";

const DAY_MS = 24 * 3_600_000;
const fleet = { subjectDN: "CN=gateways,OU=fleet,O=acme", serialNumber: "0A" };
const agentCertificate = (agentId: string, tenant = "acme") => ({
  subjectDN: `CN=${agentId},OU=agent,O=${tenant}`,
  serialNumber: "0B",
});

function harness() {
  const operations = new MemoryOperationStore();
  const bundles = new MemoryDebugBundles();
  const content = new MemoryDebugBundleContent();
  const revocations = new MemoryRevocationList();
  const clock = new ManualClock();
  const events = new MemoryEventSink();
  const intake = makeDebugBundleIntake({
    operations,
    bundles,
    content,
    revocations,
    events,
    clock,
    ids: new SequentialIds(),
    retentionMs: DEFAULT_DEBUG_BUNDLE_DAYS * DAY_MS,
  });
  const operation = async (
    agentId: string,
    state: OperationState,
    kind: Pick<OperationRecord, "operation" | "operand"> = { operation: "TRANSFER", operand: "DEBUG" },
  ) => {
    const record: OperationRecord = {
      tenant: "acme",
      agentId,
      operationId: operationIdOf(`op-${operations.records.size}`, agentId),
      ...kind,
      state,
      createdAt: clock.now(),
      createdBy: "operator@acme",
    };
    await operations.create([record]);
    return record.operationId;
  };
  return { intake, bundles, content, revocations, events, clock, operation };
}

async function* bytesOf(...chunks: string[]) {
  for (const chunk of chunks) yield Buffer.from(chunk);
}

async function* failingAfter(chunk: string, error: Error) {
  yield Buffer.from(chunk);
  throw error;
}

describe("debug bundle intake", () => {
  it("takes a delivered TRANSFER DEBUG's bundle from its tenant's fleet certificate and keeps it a day", async () => {
    const { intake, bundles, content, clock, operation } = harness();
    const operationId = await operation("edge-1", "delivered");
    const slot = await intake.admit(fleet, operationId);
    const bundle = await intake.store(slot, bytesOf("tar", ".gz"), () => 6);
    expect(bundle).toMatchObject({ tenant: "acme", agentId: "edge-1", operationId, bytes: 6 });
    expect(bundle.expiresAt - bundle.storedAt).toBe(DAY_MS);
    expect(bundle.storedAt).toBe(clock.now());
    expect(await bundles.get("acme", operationId)).toEqual(bundle);
    expect([...content.objects.values()].map((bytes) => Buffer.from(bytes).toString())).toEqual(["tar.gz"]);
  });

  it("puts one upload event of the stored bundle's bytes on the stream, for usage to count", async () => {
    const { intake, events, clock, operation } = harness();
    const operationId = await operation("edge-1", "delivered");
    await intake.store(await intake.admit(fleet, operationId), bytesOf("tar", ".gz"), () => 6);
    expect(events.events).toEqual([
      {
        type: "upload",
        version: 1,
        eventId: expect.any(String),
        tenant: "acme",
        agentId: "edge-1",
        at: clock.now(),
        what: "debugBundle",
        bytesIn: 6,
      },
    ]);
  });

  it("keeps the bundle stored when its upload event is kept nowhere", async () => {
    const { intake, bundles, events, operation } = harness();
    const operationId = await operation("edge-1", "delivered");
    events.failing = true;
    const bundle = await intake.store(await intake.admit(fleet, operationId), bytesOf("tar"), () => 3);
    expect(await bundles.get("acme", operationId)).toEqual(bundle);
  });

  it("takes it from the operation's own agent certificate, and refuses another agent's", async () => {
    const { intake, operation } = harness();
    const operationId = await operation("edge-1", "delivered");
    await expect(intake.admit(agentCertificate("edge-1"), operationId)).resolves.toMatchObject({
      agentId: "edge-1",
    });
    await expect(intake.admit(agentCertificate("edge-2"), operationId)).rejects.toMatchObject({
      code: "identity_mismatch",
    });
  });

  it("knows no operation of another tenant, nor one that is not TRANSFER DEBUG, nor an id Beacon did not make", async () => {
    const { intake, operation } = harness();
    const operationId = await operation("edge-1", "delivered");
    const describe = await operation("edge-1", "delivered", { operation: "DESCRIBE", operand: "MANIFEST" });
    for (const [certificate, id] of [
      [agentCertificate("edge-1", "globex"), operationId],
      [fleet, describe],
      [fleet, "no-agent-named"],
      [fleet, "../../etc"],
    ] as const)
      await expect(intake.admit(certificate, id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("takes a bundle only while its operation is delivered, and once", async () => {
    const { intake, operation } = harness();
    for (const state of ["queued", "done", "failed", "timed_out", "cancelled"] as const) {
      const operationId = await operation("edge-1", state);
      await expect(intake.admit(fleet, operationId)).rejects.toMatchObject({
        code: "debug_bundle_not_expected",
      });
    }
    const operationId = await operation("edge-1", "delivered");
    await intake.store(await intake.admit(fleet, operationId), bytesOf("a"), () => 1);
    await expect(intake.admit(fleet, operationId)).rejects.toMatchObject({ code: "debug_bundle_exists" });
  });

  it("refuses a revoked certificate", async () => {
    const { intake, revocations, operation } = harness();
    const operationId = await operation("edge-1", "delivered");
    revocations.revoke("acme", "A");
    await expect(intake.admit(fleet, operationId)).rejects.toMatchObject({ code: "certificate_revoked" });
  });

  it("records nothing and puts no event when the bytes fail on the way (too large, cut short)", async () => {
    const { intake, bundles, content, events, operation } = harness();
    const operationId = await operation("edge-1", "delivered");
    const slot = await intake.admit(fleet, operationId);
    const tooLarge = new Error("too large");
    await expect(intake.store(slot, failingAfter("part", tooLarge), () => 4)).rejects.toBe(tooLarge);
    expect(await bundles.get("acme", operationId)).toBeUndefined();
    expect(content.objects.size).toBe(0);
    expect(events.events).toEqual([]);
  });

  it("keeps the first of two racing uploads, removes the second's bytes and meters the first alone", async () => {
    const { intake, bundles, content, events, operation } = harness();
    const operationId = await operation("edge-1", "delivered");
    const first = await intake.admit(fleet, operationId);
    const second = await intake.admit(fleet, operationId);
    await intake.store(first, bytesOf("first"), () => 5);
    await expect(intake.store(second, bytesOf("second"), () => 6)).rejects.toMatchObject({
      code: "debug_bundle_exists",
    });
    expect((await bundles.get("acme", operationId))?.uploadId).toBe(first.uploadId);
    expect([...content.objects.values()].map((bytes) => Buffer.from(bytes).toString())).toEqual(["first"]);
    expect(events.events).toMatchObject([{ type: "upload", bytesIn: 5 }]);
  });
});

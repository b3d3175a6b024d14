import { describe, expect, it } from "vitest";
import type { AgentRecord } from "../agents/ports.js";
import { syncResourceArgs } from "../assets/location.js";
import type { ResourceSet } from "../assets/resource-set.js";
import type { HotAgentState } from "../fleet/ports.js";
import {
  type AgentsRead,
  agentsLackingAssets,
  assetPrerequisites,
  type DraftContext,
  drafts,
  kindOf,
  updateConfigurationDrafts,
} from "./drafts.js";
import type { OperationRecord } from "./model.js";

const agent = (agentId: string, agentClass = "edge"): AgentRecord => ({
  tenant: "acme",
  agentId,
  agentClass,
  firstSeen: 0,
  lastSeen: 0,
});

const set: ResourceSet = {
  className: "edge",
  entries: [{ assetId: "a".repeat(64), name: "model.bin", path: "" }],
  digest: "d".repeat(64),
  updatedAt: 0,
  updatedBy: "alice",
};

const context: DraftContext = {
  agentApiUrl: "https://agents.beacon.test",
  debugBundleTargetBase: "https://bundles.beacon.test",
  newOperationId: (agentId) => `op-${agentId}`,
};

const read = (agents: AgentRecord[], hot: Record<string, HotAgentState> = {}): AgentsRead => ({
  agents,
  hot: new Map(Object.entries(hot)),
  resourceSets: new Map([["edge", set]]),
});

describe("an operation request's drafts", () => {
  it("refuse what cannot be undone unless confirmed, and name the kind in upper case", () => {
    expect(() => kindOf({ agentId: "a1", operation: "stop", operand: "c2" })).toThrow(/confirm/);
    expect(kindOf({ agentId: "a1", operation: "stop", operand: "c2", confirm: true })).toEqual({
      operation: "STOP",
      operand: "C2",
    });
  });

  it("refuse an arg named by spaces only, naming it", () => {
    for (const blank of ["", "   "])
      expect(() =>
        kindOf({ agentId: "a1", operation: "update", operand: "properties", args: { [blank]: "1" } }),
      ).toThrow(`UPDATE PROPERTIES takes named args: ${JSON.stringify(blank)} names nothing`);
    expect(
      kindOf({
        agentId: "a1",
        operation: "update",
        operand: "properties",
        args: { "nifi.c2.enable": "true" },
      }),
    ).toEqual({ operation: "UPDATE", operand: "PROPERTIES" });
  });

  it("wait for the resource set only on agents that do not report its digest", () => {
    const agents = [agent("a1"), agent("a2")];
    const lacking = agentsLackingAssets(read(agents, { a2: { resourceHash: set.digest } }), [
      set.entries[0]?.assetId as string,
    ]);
    expect(lacking.map((each) => each.agentId)).toEqual(["a1"]);
  });

  it("refuse a flow that names an asset its class's set does not hold", () => {
    expect(() => agentsLackingAssets(read([agent("a1")]), ["b".repeat(64)])).toThrow(/does not hold/);
  });

  it("depend on an open SYNC RESOURCE to the set, else queue one ahead of the update", () => {
    const open: OperationRecord = {
      tenant: "acme",
      agentId: "a1",
      operationId: "sync-1",
      operation: "SYNC",
      operand: "RESOURCE",
      args: syncResourceArgs(set, context.agentApiUrl),
      state: "delivered",
      createdAt: 0,
    } as OperationRecord;
    const agents = [agent("a1"), agent("a2")];
    const prerequisites = assetPrerequisites(agents, read(agents), new Map([["a1", [open]]]), context);
    expect(prerequisites.get("a1")).toEqual({ dependsOn: "sync-1" });
    expect(prerequisites.get("a2")?.dependsOn).toBe("op-a2");

    const updates = updateConfigurationDrafts(
      { agentId: "a2", operation: "UPDATE" },
      agents,
      () => ({}),
      prerequisites,
    );
    expect(updates.map((draft) => [draft.agent.agentId, draft.operation, draft.dependsOn])).toEqual([
      ["a1", "UPDATE", ["sync-1"]],
      ["a2", "SYNC", undefined],
      ["a2", "UPDATE", ["op-a2"]],
    ]);
  });

  it("send each TRANSFER DEBUG to an upload target named for its own operation", () => {
    const [draft] = drafts(
      { agentId: "a1", operation: "TRANSFER", operand: "DEBUG" },
      { operation: "TRANSFER", operand: "DEBUG" },
      read([agent("a1")]),
      context,
    );
    expect(draft?.operationId).toBe("op-a1");
    expect(draft?.args).toEqual({ target: "https://bundles.beacon.test/c2/debug-bundles/op-a1" });
  });

  it("refuse a SYNC RESOURCE to an agent whose class has no set", () => {
    const noSets = { ...read([agent("a1", "bare")]), resourceSets: new Map() };
    expect(() =>
      drafts(
        { agentId: "a1", operation: "SYNC", operand: "RESOURCE" },
        { operation: "SYNC", operand: "RESOURCE" },
        noSets,
        context,
      ),
    ).toThrow(/has no resource set/);
  });
});

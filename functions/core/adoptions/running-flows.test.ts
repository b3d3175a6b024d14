import { describe, expect, it } from "vitest";
import { runningFlows } from "./running-flows.js";

const hash = "ab".repeat(32);

describe("a class's running flows", () => {
  it("groups agents by the flow id they report, the most run first, and says which Beacon holds", () => {
    const agents = [
      ...Array.from({ length: 8 }, (_, index) => ({ agentId: `pump-${index}`, flowId: "incumbent-a" })),
      { agentId: "gw-1", flowId: "incumbent-b" },
      { agentId: "gw-2", flowId: hash },
      { agentId: "gw-3", flowId: "incumbent-c" },
      { agentId: "gw-4", flowId: "rendered-e" },
      { agentId: "gw-5", flowId: "rendered-own" },
      { agentId: "new-1" },
    ];
    const versions = [
      { hash },
      { hash: "cd".repeat(32), adoptedFlowId: "incumbent-c" },
      { hash: "ef".repeat(32), renderedFlowIds: ["rendered-e", "rendered-own"] },
    ];
    expect(runningFlows(agents, versions)).toEqual({
      withoutFlow: 1,
      flows: [
        {
          flowId: "incumbent-a",
          agentCount: 8,
          agentIds: ["pump-0", "pump-1", "pump-2", "pump-3", "pump-4"],
        },
        { flowId: hash, agentCount: 1, agentIds: ["gw-2"], flowHash: hash },
        { flowId: "incumbent-b", agentCount: 1, agentIds: ["gw-1"] },
        { flowId: "incumbent-c", agentCount: 1, agentIds: ["gw-3"], flowHash: "cd".repeat(32) },
        { flowId: "rendered-e", agentCount: 1, agentIds: ["gw-4"], flowHash: "ef".repeat(32) },
        { flowId: "rendered-own", agentCount: 1, agentIds: ["gw-5"], flowHash: "ef".repeat(32) },
      ],
    });
  });

  it("has no group for a class whose agents report no flow", () => {
    expect(runningFlows([{ agentId: "a" }, { agentId: "b", flowId: "" }], [])).toEqual({
      flows: [],
      withoutFlow: 2,
    });
  });
});

import { describe, expect, it } from "vitest";
import { expectedAgentIds, migrationReport, reportText } from "./migration-report.js";

const HELD = "a".repeat(64);

const plant7 = {
  className: "plant7",
  agentCount: 3,
  withoutFlow: 1,
  flows: [
    { flowId: "incumbent-flow-7", agentCount: 1, agentIds: ["gw-2"], flowHash: HELD },
    { flowId: "incumbent-flow-8", agentCount: 1, agentIds: ["gw-1"] },
  ],
};
const agents = [
  { agentId: "gw-2", agentClass: "plant7", status: "online" as const, flowId: "incumbent-flow-7" },
  { agentId: "gw-1", agentClass: "plant7", status: "offline" as const, flowId: "incumbent-flow-8" },
  { agentId: "gw-3", agentClass: "plant7", status: "online" as const },
];

describe("the migration report", () => {
  it("says of each agent whether Beacon holds the flow it runs, by its class's running flows", () => {
    const report = migrationReport({ agents, runningFlows: [plant7] });
    expect(report.agents.map(({ agentId, flow }) => [agentId, flow])).toEqual([
      ["gw-1", "to adopt"],
      ["gw-2", "held"],
      ["gw-3", "no flow"],
    ]);
    expect(report.classes).toEqual([
      { className: "plant7", agentCount: 3, withoutFlow: 1, toAdopt: 1, flows: plant7.flows },
    ]);
    expect(report.expected).toBeUndefined();
  });

  it("holds a flow id only within its class: another class running it still has it to adopt", () => {
    const report = migrationReport({
      agents: [{ agentId: "gw-9", agentClass: "plant9", status: "online", flowId: "incumbent-flow-7" }],
      runningFlows: [
        plant7,
        {
          className: "plant9",
          agentCount: 1,
          withoutFlow: 0,
          flows: [{ flowId: "incumbent-flow-7", agentCount: 1, agentIds: ["gw-9"] }],
        },
      ],
    });
    expect(report.agents[0]?.flow).toBe("to adopt");
    expect(report.classes.map(({ className, toAdopt }) => [className, toAdopt])).toEqual([
      ["plant7", 1],
      ["plant9", 1],
    ]);
  });

  it("names the expected agents that arrived, those that did not, and those seen unexpected", () => {
    const expected = expectedAgentIds("# exported from the incumbent\ngw-1\n\n  gw-4  \ngw-2\ngw-1\n");
    expect(expected).toEqual(["gw-1", "gw-4", "gw-2", "gw-1"]);
    const report = migrationReport({ agents, runningFlows: [plant7], expected });
    expect(report.expected).toEqual({
      count: 3,
      arrived: ["gw-1", "gw-2"],
      notArrived: ["gw-4"],
      unexpected: ["gw-3"],
    });
  });

  it("prints the agents, the flows by class and the arrivals as a table", () => {
    const text = reportText(migrationReport({ agents, runningFlows: [plant7], expected: ["gw-1", "gw-4"] }));
    expect(text.split("\n")).toEqual([
      "Agents seen: 3 (2 online)",
      "agent  class   status   flow id           flow",
      "gw-1   plant7  offline  incumbent-flow-8  to adopt",
      "gw-2   plant7  online   incumbent-flow-7  held",
      "gw-3   plant7  online   -                 no flow",
      "",
      "Flows by class",
      "class   flow id           agents  held by Beacon as",
      `plant7  incumbent-flow-7  1       ${HELD.slice(0, 12)}`,
      "plant7  incumbent-flow-8  1       to adopt",
      "plant7  (none reported)   1       -",
      "plant7: 1 of 3 agents run a flow still to adopt",
      "",
      "Expected agents: 2; arrived 1, not arrived 1",
      "  not arrived: gw-4",
      "Seen but not expected: gw-2, gw-3",
    ]);
  });

  it("says when every flow of a class is held", () => {
    const text = reportText(
      migrationReport({
        agents: agents.slice(0, 1),
        runningFlows: [{ ...plant7, agentCount: 1, withoutFlow: 0, flows: plant7.flows.slice(0, 1) }],
      }),
    );
    expect(text).toContain("plant7: every flow its agents run is held by Beacon");
    expect(text).not.toContain("Expected agents");
  });
});

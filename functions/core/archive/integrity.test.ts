import { describe, expect, it } from "vitest";
import type { BeaconEvent, HeartbeatEvent } from "../events/model.js";
import { integrityOf } from "./integrity.js";

const START = Date.UTC(2026, 10, 24, 12);
const MINUTE = 60_000;

/** Agent `agentId`'s heartbeat number `sequence`, recorded a minute after the one before. */
const beat = (agentId: string, sequence: number | undefined, minute = sequence ?? 0): HeartbeatEvent => ({
  type: "heartbeat",
  version: 1,
  eventId: `${agentId}-${minute}-${sequence}`,
  tenant: "acme",
  agentId,
  at: START + minute * MINUTE,
  sequence,
  firstSight: false,
  operationsSent: [],
});

const numbered = (agentId: string, sequences: number[]) =>
  sequences.map((sequence) => beat(agentId, sequence));

describe("the archive's integrity", () => {
  it("expects every number from a run's first to its last, and finds nothing lost in a whole one", () => {
    const report = integrityOf(numbered("a-1", [1, 2, 3, 4]));
    expect(report.agents).toEqual([
      { agentId: "a-1", expected: 4, received: 4, lost: 0, duplicated: 0, unsequenced: 0, runs: 1, gaps: [] },
    ]);
  });

  it("counts the numbers no event carries as lost, and names the gaps", () => {
    const [agent] = integrityOf(numbered("a-1", [1, 2, 5, 6, 8])).agents;
    expect(agent).toMatchObject({ expected: 8, received: 5, lost: 3 });
    expect(agent?.gaps).toEqual([
      { run: 1, first: 3, last: 4 },
      { run: 1, first: 7, last: 7 },
    ]);
  });

  it("counts an event archived twice, and two events of one number, as duplicates, not as more received", () => {
    const events = numbered("a-1", [1, 2, 3]);
    const again = events[1] as HeartbeatEvent;
    const sameNumber = { ...beat("a-1", 3), eventId: "another" };
    const [agent] = integrityOf([...events, again, again, sameNumber]).agents;
    expect(agent).toMatchObject({ expected: 3, received: 3, lost: 0, duplicated: 3 });
  });

  it("takes a drop to 1 for a new run of the sequence, not for loss, and finds gaps in each run", () => {
    const first = numbered("a-1", [1, 2, 3, 4]);
    const second = [1, 2, 4].map((sequence) => beat("a-1", sequence, 10 + sequence));
    const [agent] = integrityOf([...second, ...first]).agents;
    expect(agent).toMatchObject({ runs: 2, expected: 8, received: 7, lost: 1, duplicated: 0 });
    expect(agent?.gaps).toEqual([{ run: 2, first: 3, last: 3 }]);
  });

  it("counts unnumbered heartbeat events apart, in no run, and counts copies of them as duplicates", () => {
    const unnumbered = beat("a-1", undefined, 3);
    const [agent] = integrityOf([
      ...numbered("a-1", [1, 2]),
      unnumbered,
      unnumbered,
      beat("a-1", 3, 4),
    ]).agents;
    expect(agent).toMatchObject({
      expected: 3,
      received: 3,
      lost: 0,
      unsequenced: 1,
      duplicated: 1,
      runs: 1,
    });
  });

  it("counts only heartbeats recorded in the window, spanning a run from its lowest number seen", () => {
    const events = numbered("a-1", [1, 2, 3, 4, 6, 7, 8]);
    const scope = { from: START + 2 * MINUTE, to: START + 7 * MINUTE };
    const [agent] = integrityOf(events, scope).agents;
    expect(agent).toMatchObject({ expected: 5, received: 4, lost: 1, runs: 1 });
    expect(agent?.gaps).toEqual([{ run: 1, first: 5, last: 5 }]);
  });

  it("reports each agent apart, or the one asked for, with totals, and ignores other events", () => {
    const ack: BeaconEvent = {
      type: "ack",
      version: 1,
      eventId: "ack-1",
      tenant: "acme",
      agentId: "a-1",
      at: START,
      operationId: "op-1",
      state: "FULLY_APPLIED",
      matched: true,
    };
    const events = [...numbered("b-2", [1, 3]), ...numbered("a-1", [1, 2]), ack];
    const report = integrityOf(events);
    expect(report.agents.map((agent) => [agent.agentId, agent.lost])).toEqual([
      ["a-1", 0],
      ["b-2", 1],
    ]);
    expect(report.totals).toEqual({
      expected: 5,
      received: 4,
      lost: 1,
      duplicated: 0,
      unsequenced: 0,
      runs: 2,
    });
    expect(integrityOf(events, { agentId: "a-1" }).totals).toMatchObject({ expected: 2, lost: 0 });
    expect(integrityOf([ack]).agents).toEqual([]);
  });
});

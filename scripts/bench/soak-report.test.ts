import { describe, expect, it } from "vitest";
import {
  type Answer,
  ackKey,
  boundChecks,
  heartbeatKey,
  memoryGrowth,
  reportLines,
  SOAK_BOUNDS,
  type SoakInput,
  soakFigures,
  spreadOf,
  streamKeyOf,
} from "./soak-report.js";

const STARTED_AT = 1_000_000;
const MB = 1024 * 1024;

const heartbeatEvent = (agentId: string, uptime: number, eventId = `${agentId}-${uptime}`) => ({
  type: "heartbeat",
  eventId,
  tenant: "dev",
  agentId,
  status: { uptime },
});
const ackEvent = (agentId: string, operationId: string) => ({
  type: "ack",
  eventId: `ack-${operationId}`,
  agentId,
  operationId,
});
const heartbeat = (
  agentId: string,
  uptime: number,
  sentAt: number,
  ms = 20,
  status: number | string = 200,
): Answer => ({
  kind: "heartbeat",
  key: heartbeatKey(agentId, uptime),
  sentAt,
  ms,
  status,
});

/** Four heartbeats and an ack accepted, one heartbeat timed out; the stream holds them, one of them twice. */
function input(overrides: Partial<SoakInput> = {}): SoakInput {
  const answers: Answer[] = [
    heartbeat("a", 1000, STARTED_AT),
    heartbeat("a", 2000, STARTED_AT + 1000),
    heartbeat("b", 1000, STARTED_AT + 100, 2_500),
    heartbeat("b", 2000, STARTED_AT + 1100, 6_000),
    heartbeat("b", 3000, STARTED_AT + 2100, 60_000, "timeout"),
    { kind: "ack", key: ackKey("b", "op-1"), sentAt: STARTED_AT + 200, ms: 30, status: 200 },
  ];
  const stream = [
    heartbeatEvent("a", 1000),
    heartbeatEvent("a", 2000),
    heartbeatEvent("a", 2000),
    heartbeatEvent("b", 1000),
    heartbeatEvent("b", 2000),
    ackEvent("b", "op-1"),
    { type: "agent.online", eventId: "online-b", agentId: "b" },
  ];
  return {
    answers,
    stream,
    archive: stream,
    historyHeartbeats: 4,
    faults: [{ fault: "Redis frozen", from: STARTED_AT + 1000, to: STARTED_AT + 2000 }],
    memory: [],
    startedAt: STARTED_AT,
    ...overrides,
  };
}

describe("streamKeyOf", () => {
  it("knows heartbeats by agent and uptime, acks by agent and operation, and nothing else", () => {
    expect(streamKeyOf(heartbeatEvent("a", 5))).toEqual({
      key: heartbeatKey("a", 5),
      eventId: "a-5",
      kind: "heartbeat",
    });
    expect(streamKeyOf(ackEvent("a", "op"))).toEqual({
      key: ackKey("a", "op"),
      eventId: "ack-op",
      kind: "ack",
    });
    expect(streamKeyOf({ type: "agent.online", eventId: "x", agentId: "a" })).toBeUndefined();
    expect(streamKeyOf({ type: "heartbeat", eventId: "x", agentId: "a" })).toBeUndefined();
  });
});

describe("soakFigures", () => {
  it("counts what was accepted, what the stream holds once and twice, and nothing lost", () => {
    const figures = soakFigures(input());
    expect(figures.accepted).toEqual({ heartbeats: 4, acks: 1, total: 5 });
    expect(figures.onStream).toEqual({ events: 5, records: 6 });
    expect(figures).toMatchObject({
      archived: 5,
      lost: 0,
      notArchived: 0,
      streamDuplicates: 1,
      downstreamDuplicates: 0,
      historyShort: 0,
    });
    expect(figures.per100k.streamDuplicates).toBe(20_000);
    expect(figures.answers).toEqual({ total: 6, failed: 1, over2s: 3, over5s: 2 });
  });

  it("finds an accepted event the stream never had, one the archive lacks, and history counted twice or short", () => {
    const { stream } = input();
    const withoutB2 = stream.filter((event) => (event as { eventId: string }).eventId !== "b-2000");
    expect(soakFigures(input({ stream: withoutB2, archive: withoutB2 }))).toMatchObject({
      lost: 1,
      notArchived: 1,
      per100k: { lost: 20_000, notArchived: 20_000 },
    });
    expect(soakFigures(input({ archive: [...stream, ...stream] })).notArchived).toBe(0);
    expect(soakFigures(input({ archive: stream.slice(3) })).notArchived).toBe(2);
    expect(soakFigures(input({ historyHeartbeats: 6 }))).toMatchObject({
      downstreamDuplicates: 2,
      historyShort: 0,
    });
    expect(soakFigures(input({ historyHeartbeats: 3 }))).toMatchObject({
      downstreamDuplicates: 0,
      historyShort: 1,
    });
  });

  it("times answers in the fault's window apart from the steady state, by when they were sent", () => {
    const [steady, fault] = soakFigures(input()).latency;
    expect(steady).toMatchObject({ window: "steady", count: 4, max: 60_000 });
    expect(fault).toMatchObject({
      window: "Redis frozen at 0:01",
      count: 2,
      p50: 6_000,
      p99: 6_000,
      max: 6_000,
    });
  });
});

describe("memoryGrowth", () => {
  it("compares each process's last third of samples with its first, bounding Beacon's and Redis's only", () => {
    const samples = [100, 110, 120, 130, 140, 150].map((mb, index) => ({
      at: index * 30_000,
      bytes: { "redis-server": mb * MB, kinesalite: (index + 1) * 100 * MB },
    }));
    expect(memoryGrowth(samples)).toEqual([
      { process: "redis-server", firstThirdMb: 105, lastThirdMb: 145, growth: 145 / 105, bounded: true },
      { process: "kinesalite", firstThirdMb: 150, lastThirdMb: 550, growth: 550 / 150, bounded: false },
    ]);
    expect(memoryGrowth(samples.slice(0, 2))).toEqual([]);
  });
});

describe("boundChecks", () => {
  it("passes a run within every bound and names each figure over its own", () => {
    const once = input().stream.filter((_, index) => index !== 2);
    const clean = input({
      stream: once,
      archive: once,
      answers: input().answers.filter(({ ms }) => ms <= 2_000),
      historyHeartbeats: 4,
    });
    expect(boundChecks(soakFigures(clean)).every(({ within }) => within)).toBe(true);
    const over = boundChecks(soakFigures(input({ historyHeartbeats: 5 })))
      .filter(({ within }) => !within)
      .map(({ figure, value, bound }) => [figure, value, bound]);
    expect(over).toEqual([
      ["stream duplicates per 100,000", 20_000, SOAK_BOUNDS.streamDuplicatesPer100k],
      ["downstream duplicates", 1, 0],
      ["answers over 5 s", 2, 0],
      ["p99 ms, Redis frozen at 0:01", 6_000, SOAK_BOUNDS.faultP99Ms],
    ]);
  });

  it("holds the growth of bounded processes' memory to its bound", () => {
    const growing = [100, 100, 200, 200, 300, 300].map((mb, index) => ({
      at: index,
      bytes: { "redis-server": mb * MB },
    }));
    const checks = boundChecks(soakFigures(input({ memory: growing })));
    expect(checks.find(({ figure }) => figure === "memory growth, redis-server")).toEqual({
      figure: "memory growth, redis-server",
      value: 3,
      bound: SOAK_BOUNDS.memoryGrowth,
      within: false,
    });
  });
});

describe("the printed report", () => {
  it("keeps the first and last samples of a long run, and prints each bound beside its figure", () => {
    expect(spreadOf([1, 2, 3, 4, 5, 6, 7, 8, 9], 3)).toEqual([1, 5, 9]);
    expect(spreadOf([1, 2], 3)).toEqual([1, 2]);
    const figures = soakFigures(input());
    const lines = reportLines(figures, [], boundChecks(figures));
    expect(lines).toContain("OVER answers over 5 s: 2 (bound 0)");
    expect(lines).toContain("ok   lost per 100,000: 0 (bound 0)");
  });
});

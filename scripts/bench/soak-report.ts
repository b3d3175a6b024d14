/**
 * The arithmetic of `npm run soak`'s report, apart from the run: what the agents were answered, what the stream,
 * the archive and the fleet history hold, each fault's window and the processes' memory, made into the report's
 * figures and judged against its bounds, all of which are here.
 */
import { latencySummary } from "./agent-client.js";

/** What a figure may be at most; the report prints them with its figures. */
export const SOAK_BOUNDS = {
  /** Accepted (answered 200) events that never reached the stream, per 100,000 accepted. */
  lostPer100k: 0,
  /** Accepted events the archive does not hold, per 100,000 accepted: the archive promises what the stream does. */
  notArchivedPer100k: 0,
  /** Events on the stream more than once (one eventId again), per 100,000 accepted: the stream delivers at least once. */
  streamDuplicatesPer100k: 1,
  /** Heartbeats the fleet history counted more than once. */
  downstreamDuplicates: 0,
  /** Answers an agent waited more than 5 s for (or never had). */
  answersOver5s: 0,
  /** Each fault window's p99, in ms. */
  faultP99Ms: 2_000,
  /**
   * Resident memory of the processes whose memory should not grow with time (Beacon's functions and Redis): the
   * mean of the run's last third over its first third's. After the first third every agent of the fleet has
   * registered, so its per-agent state is all there; the new agents registering during the run add a tenth to the
   * fleet over the whole run, a few percent between the thirds, and heaps settle within that. Growing by a quarter
   * more under a steady load is growing with time. The emulators are shown but not bounded: kinesalite keeps
   * every record of the stream in memory and DynamoDB Local every item of the fleet history, by design.
   */
  memoryGrowth: 1.25,
} as const;

/** The processes whose memory growth is bounded, by the names the soak gives them. */
export const MEMORY_BOUNDED_PROCESSES = ["Beacon (npm start)", "redis-server"] as const;

export type AnswerKind = "heartbeat" | "ack";

/** One request of an agent and what it was answered: an HTTP status, or the error's code when none came. */
export interface Answer {
  kind: AnswerKind;
  /** The event the request makes, as the stream's copy of it is known (streamKeyOf). */
  key: string;
  /** Epoch ms when it was sent. */
  sentAt: number;
  ms: number;
  status: number | string;
}

/** A heartbeat is known on the stream by its agent and its uptime, which every heartbeat of the soak's agents advances. */
export const heartbeatKey = (agentId: string, uptimeMs: number) => `${agentId}/heartbeat/${uptimeMs}`;
/** An acknowledgement by its agent and its operation. */
export const ackKey = (agentId: string, operationId: string) => `${agentId}/ack/${operationId}`;

/** A heartbeat or ack event on the stream or in the archive, by the key its request had; other events, none. */
export function streamKeyOf(event: unknown): { key: string; eventId: string; kind: AnswerKind } | undefined {
  const { type, agentId, eventId, status, operationId } = event as {
    type?: string;
    agentId?: string;
    eventId?: string;
    status?: { uptime?: number };
    operationId?: string;
  };
  if (agentId === undefined || eventId === undefined) return undefined;
  if (type === "heartbeat" && status?.uptime !== undefined)
    return { key: heartbeatKey(agentId, status.uptime), eventId, kind: "heartbeat" };
  if (type === "ack" && operationId !== undefined)
    return { key: ackKey(agentId, operationId), eventId, kind: "ack" };
  return undefined;
}

/** A fault from when it began until the stack had had its recovery allowance after it ended. */
export interface FaultWindow {
  fault: string;
  from: number;
  to: number;
}

/** Each process's resident memory at one time. */
export interface MemorySample {
  at: number;
  bytes: Record<string, number>;
}

export interface SoakInput {
  answers: Answer[];
  /** Every record of the stream, parsed. */
  stream: unknown[];
  /** Every line of the archive's objects, parsed. */
  archive: unknown[];
  /** The heartbeats the fleet history counted for the soak's tenant over the run. */
  historyHeartbeats: number;
  faults: FaultWindow[];
  memory: MemorySample[];
  /** Epoch ms when the fleet started, from which fault windows are timed. */
  startedAt: number;
}

export interface LatencyFigures {
  /** "steady", or the fault's name and when it began. */
  window: string;
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export interface MemoryFigures {
  process: string;
  firstThirdMb: number;
  lastThirdMb: number;
  /** Last third's mean over the first third's. */
  growth: number;
  bounded: boolean;
}

export interface SoakFigures {
  accepted: { heartbeats: number; acks: number; total: number };
  /** Distinct heartbeat and ack events on the stream, and their records (more when some are there twice). */
  onStream: { events: number; records: number };
  /** Accepted events the archive holds. */
  archived: number;
  historyHeartbeats: number;
  lost: number;
  notArchived: number;
  streamDuplicates: number;
  /** Heartbeats the history counted beyond the distinct heartbeat events on the stream. */
  downstreamDuplicates: number;
  /** Heartbeats on the stream the history did not count. */
  historyShort: number;
  per100k: { lost: number; notArchived: number; streamDuplicates: number; downstreamDuplicates: number };
  answers: { total: number; failed: number; over2s: number; over5s: number };
  latency: LatencyFigures[];
  memory: MemoryFigures[];
}

const per100k = (count: number, of: number) => (of === 0 ? 0 : (count * 100_000) / of);
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
const MB = 1024 * 1024;

export function soakFigures(input: SoakInput): SoakFigures {
  const accepted = new Map<string, AnswerKind>();
  for (const answer of input.answers) if (answer.status === 200) accepted.set(answer.key, answer.kind);
  const acceptedHeartbeats = [...accepted.values()].filter((kind) => kind === "heartbeat").length;
  const streamEvents = input.stream.flatMap((event) => streamKeyOf(event) ?? []);
  const streamKeys = new Set(streamEvents.map(({ key }) => key));
  const streamEventIds = new Set(streamEvents.map(({ eventId }) => eventId));
  const streamHeartbeats = new Set(
    streamEvents.filter(({ kind }) => kind === "heartbeat").map(({ eventId }) => eventId),
  ).size;
  const archiveKeys = new Set(input.archive.flatMap((event) => streamKeyOf(event)?.key ?? []));
  const lost = [...accepted.keys()].filter((key) => !streamKeys.has(key)).length;
  const archived = [...accepted.keys()].filter((key) => archiveKeys.has(key)).length;
  const streamDuplicates = streamEvents.length - streamEventIds.size;
  const downstreamDuplicates = Math.max(0, input.historyHeartbeats - streamHeartbeats);
  const total = accepted.size;
  return {
    accepted: { heartbeats: acceptedHeartbeats, acks: total - acceptedHeartbeats, total },
    onStream: { events: streamEventIds.size, records: streamEvents.length },
    archived,
    historyHeartbeats: input.historyHeartbeats,
    lost,
    notArchived: total - archived,
    streamDuplicates,
    downstreamDuplicates,
    historyShort: Math.max(0, streamHeartbeats - input.historyHeartbeats),
    per100k: {
      lost: per100k(lost, total),
      notArchived: per100k(total - archived, total),
      streamDuplicates: per100k(streamDuplicates, total),
      downstreamDuplicates: per100k(downstreamDuplicates, total),
    },
    answers: {
      total: input.answers.length,
      failed: input.answers.filter(({ status }) => status !== 200).length,
      over2s: input.answers.filter(({ ms }) => ms > 2_000).length,
      over5s: input.answers.filter(({ ms }) => ms > 5_000).length,
    },
    latency: latencyByWindow(input.answers, input.faults, input.startedAt),
    memory: memoryGrowth(input.memory),
  };
}

/** Latency in steady state (outside every fault window) and in each fault window, by when each request was sent. */
export function latencyByWindow(
  answers: Answer[],
  faults: FaultWindow[],
  startedAt: number,
): LatencyFigures[] {
  const inWindow = (answer: Answer, fault: FaultWindow) =>
    answer.sentAt >= fault.from && answer.sentAt < fault.to;
  const figuresOf = (window: string, of: Answer[]): LatencyFigures => {
    const { count, p50, p99, max } = latencySummary(of.map(({ ms }) => ms));
    return { window, count, p50, p99, max };
  };
  return [
    figuresOf(
      "steady",
      answers.filter((answer) => !faults.some((fault) => inWindow(answer, fault))),
    ),
    ...faults.map((fault) =>
      figuresOf(
        `${fault.fault} at ${clock(fault.from - startedAt)}`,
        answers.filter((answer) => inWindow(answer, fault)),
      ),
    ),
  ];
}

/** Each process's mean resident memory in the run's first and last thirds of samples, and its growth. */
export function memoryGrowth(samples: MemorySample[]): MemoryFigures[] {
  const third = Math.floor(samples.length / 3);
  if (third === 0) return [];
  const names = [...new Set(samples.flatMap((sample) => Object.keys(sample.bytes)))];
  return names.map((name) => {
    const meanOf = (of: MemorySample[]) => mean(of.map((sample) => sample.bytes[name] ?? 0)) / MB;
    const firstThirdMb = meanOf(samples.slice(0, third));
    const lastThirdMb = meanOf(samples.slice(samples.length - third));
    return {
      process: name,
      firstThirdMb,
      lastThirdMb,
      growth: firstThirdMb === 0 ? 0 : lastThirdMb / firstThirdMb,
      bounded: (MEMORY_BOUNDED_PROCESSES as readonly string[]).includes(name),
    };
  });
}

export interface BoundCheck {
  figure: string;
  value: number;
  bound: number;
  within: boolean;
}

/** Every bounded figure beside its bound. */
export function boundChecks(figures: SoakFigures): BoundCheck[] {
  const check = (figure: string, value: number, bound: number): BoundCheck => ({
    figure,
    value,
    bound,
    within: value <= bound,
  });
  return [
    check("lost per 100,000", figures.per100k.lost, SOAK_BOUNDS.lostPer100k),
    check("not archived per 100,000", figures.per100k.notArchived, SOAK_BOUNDS.notArchivedPer100k),
    check(
      "stream duplicates per 100,000",
      figures.per100k.streamDuplicates,
      SOAK_BOUNDS.streamDuplicatesPer100k,
    ),
    check("downstream duplicates", figures.downstreamDuplicates, SOAK_BOUNDS.downstreamDuplicates),
    check("answers over 5 s", figures.answers.over5s, SOAK_BOUNDS.answersOver5s),
    ...figures.latency
      .filter(({ window }) => window !== "steady")
      .map(({ window, p99 }) => check(`p99 ms, ${window}`, p99, SOAK_BOUNDS.faultP99Ms)),
    ...figures.memory
      .filter(({ bounded }) => bounded)
      .map(({ process, growth }) => check(`memory growth, ${process}`, growth, SOAK_BOUNDS.memoryGrowth)),
  ];
}

/** Minutes and seconds since the run began. */
export const clock = (ms: number) => {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
};

/** At most `count` samples, evenly spaced, the first and last among them: the memory curve's rows. */
export function spreadOf<T>(items: T[], count: number): T[] {
  if (items.length <= count) return items;
  return Array.from(
    { length: count },
    (_, index) => items[Math.round((index * (items.length - 1)) / (count - 1))] as T,
  );
}

const table = (rows: string[][]) => rows.map((row) => `| ${row.join(" | ")} |`);
const ms = (value: number) => value.toFixed(0);
const rate = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2));

/** The report as printed: its figures, the memory curve, and each bounded figure beside its bound. */
export function reportLines(figures: SoakFigures, memory: MemorySample[], checks: BoundCheck[]): string[] {
  const f = figures;
  const start = memory[0]?.at ?? 0;
  const names = f.memory.map(({ process }) => process);
  return [
    `events accepted: ${f.accepted.total} (heartbeats ${f.accepted.heartbeats}, acks ${f.accepted.acks}); ` +
      `answers ${f.answers.total}, not 200 ${f.answers.failed}`,
    `on the stream: ${f.onStream.events} distinct heartbeat and ack events in ${f.onStream.records} records`,
    `archived: ${f.archived} of the accepted; counted in fleet history: ${f.historyHeartbeats} heartbeats`,
    `lost ${f.lost} (${rate(f.per100k.lost)} per 100,000); not archived ${f.notArchived} (${rate(f.per100k.notArchived)}); ` +
      `stream duplicates ${f.streamDuplicates} (${rate(f.per100k.streamDuplicates)}); downstream duplicates ${f.downstreamDuplicates} ` +
      `(${rate(f.per100k.downstreamDuplicates)}); heartbeats on the stream the history did not count ${f.historyShort}`,
    `answers over 2 s: ${f.answers.over2s}; over 5 s: ${f.answers.over5s}`,
    "",
    ...table([
      ["window", "answers", "p50 ms", "p99 ms", "max ms"],
      ["---", "---", "---", "---", "---"],
      ...f.latency.map(({ window, count, p50, p99, max }) => [
        window,
        String(count),
        ms(p50),
        ms(p99),
        ms(max),
      ]),
    ]),
    "",
    "resident memory, MB:",
    ...table([
      ["time", ...names],
      ["---", ...names.map(() => "---")],
      ...spreadOf(memory, 12).map((sample) => [
        clock(sample.at - start),
        ...names.map((name) => ((sample.bytes[name] ?? 0) / MB).toFixed(0)),
      ]),
      [
        "last third / first third",
        ...f.memory.map(({ growth, bounded }) => `${growth.toFixed(2)}${bounded ? "" : " (not bounded)"}`),
      ],
    ]),
    "",
    "bounds:",
    ...checks.map(
      ({ figure, value, bound, within }) =>
        `${within ? "ok  " : "OVER"} ${figure}: ${rate(value)} (bound ${bound})`,
    ),
  ];
}

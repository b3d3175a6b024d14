/**
 * What a group's members cost to read over a large fleet: a tenant of many agents written as Beacon writes them
 * (agent-fleet.ts), a label on each, the console API's own composition in this process on a DynamoDB client
 * that counts its requests and the read capacity they consumed (ReturnConsumedCapacity): the counting pass of
 * every group (the sweeper's, to its end), then the groups' reads with their stored counts (GET /groups,
 * GET /groups/{name}) and each group's first page of members (GET /groups/{name}/agents), round after round;
 * then the rollouts to a group (group-rollout.ts). `npm run bench:groups` (groups.ts) runs it on backends of
 * its own.
 */
import { loadavg } from "node:os";
import { DynamoClassCatalog } from "../../functions/adapters/dynamodb/class-catalog.js";
import { DynamoFleetRegistry } from "../../functions/adapters/dynamodb/fleet-registry.js";
import { DynamoGroupStore } from "../../functions/adapters/dynamodb/group-store.js";
import { DynamoManifestCatalog } from "../../functions/adapters/dynamodb/manifest-catalog.js";
import { RedisFleetHotState } from "../../functions/adapters/redis/fleet-hot-state.js";
import { composeConsoleApi } from "../../functions/console-api/composition.js";
import type { ConsoleRoute } from "../../functions/console-api/routes.js";
import type { Principal } from "../../functions/core/identity/principal.js";
import { consoleApiConfig, sweeperConfig } from "../../functions/shared/config.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { composeGroupCounting } from "../../functions/sweeper/composition.js";
import { ensureDevCertificates } from "../local/certs.js";
import { FLEET_CLASSES, type FleetReport } from "./agent-fleet.js";
import { thisMachine } from "./calibration.js";
import { meteredClient, usedSince } from "./dynamodb-meter.js";
import { benchConsoleEnv, type FleetBenchOptions, writeBenchFleet } from "./fleet-bench.js";
import { type GroupRolloutReport, groupRolloutLines, runGroupRollout } from "./group-rollout.js";
import { median } from "./median.js";

/** Each agent's site, by its index: a label a quarter of the fleet shares. */
const SITES = ["north", "south", "east", "west"] as const;
/** Rows of the Groups page's first page of members. */
const PAGE_ROWS = 50;

/**
 * The groups measured: by capability (the C++ binary's PublishKafka), by label, by class and label, and by
 * class and last seen.
 */
const GROUPS = [
  {
    name: "kafka-publishers",
    query: {
      components: [
        {
          kind: "processor",
          type: "org.apache.nifi.minifi.processors.PublishKafka",
          artifact: "minifi-kafka",
          version: { atLeast: "1.0.0" },
        },
      ],
    },
  },
  { name: "site-north", query: { labels: ["site=north"] } },
  { name: "gateways-at-north", query: { classes: [FLEET_CLASSES[0]], labels: ["site=north"] } },
  // Seen within the hour, which the cache answers: the written fleet's heartbeating agents stay so for an hour.
  { name: "gateways-seen-lately", query: { classes: [FLEET_CLASSES[0]], seenWithinMinutes: 60 } },
];

/**
 * The rollouts' target: the label group, within the first class (a rollout is a class's); the group that
 * names both holds the same agents, and the counting pass's count of it sizes the batches.
 */
const ROLLOUT_TARGET = { group: "site-north", alike: "gateways-at-north" };
/** The group's size the rollouts' figures are projected to. */
const ROLLOUT_PROJECTED_MEMBERS = 100_000;

/** One read's cost: wall time, DynamoDB requests and the read capacity units they consumed. */
export interface ReadCost {
  samplesMs: number[];
  p50Ms: number;
  requests: number;
  capacityUnits: number;
}

export interface GroupResult {
  name: string;
  query: unknown;
  members: number;
  /** GET /groups/{name}: the group with its count by the pass. */
  count: ReadCost;
  firstPage: ReadCost & { rows: number };
}

/** The counting pass of every group of the tenant, as the sweeper's runs take it, to its end. */
export interface PassCost extends ReadCost {
  agentsRead: number;
  registryReads: number;
  /** The sweeper's runs the pass took, at most `maxReadsPerRun` registry reads a run. */
  sweeperRuns: number;
}

export interface GroupsReport {
  machine: { cpu: string; cores: number; node: string };
  load: { before: number[]; after: number[] };
  fleet: FleetReport;
  pass: PassCost;
  /** GET /groups: the groups with their counts. */
  list: ReadCost;
  groups: GroupResult[];
  /** Two rollouts to the label group's agents of one class, and what a member and a batch cost. */
  rollout: GroupRolloutReport;
}

export async function runGroupsBench(options: FleetBenchOptions): Promise<GroupsReport> {
  const { env, tenant, log } = options;
  const consoleEnv = benchConsoleEnv(options);
  const written = await writeBenchFleet(options, (index) => ({
    site: SITES[index % SITES.length] as string,
  }));
  const { fleet, redis, documents: seedDocuments } = written;
  const { documents, meter } = meteredClient(env);
  const stops: Array<() => Promise<void> | void> = [written.close];
  try {
    await ensureDevCertificates(consoleEnv[EnvNames.agentCaDir] as string);
    // The composition's other clients (S3, Kinesis) read their endpoints from the process's environment.
    Object.assign(process.env, consoleEnv);
    const consoleApi = composeConsoleApi(consoleApiConfig(consoleEnv), documents);
    stops.push(() => consoleApi.close());
    const principal: Principal = { tenant, role: "operator", subject: "bench-operator" };
    const call = async (operationId: string, input: Parameters<ConsoleRoute>[1]) => {
      const result = await (consoleApi.routes[operationId] as ConsoleRoute)(principal, input);
      if ((result.status ?? 200) >= 300) throw new Error(`${operationId} answered ${result.status}`);
      return result.body as Record<string, unknown>;
    };
    /** The read `rounds` times; its requests and capacity as the last round made them. */
    const measure = async <T>(read: () => Promise<T>): Promise<{ cost: ReadCost; last: T }> => {
      const samplesMs: number[] = [];
      let last: T | undefined;
      let requests = 0;
      let capacityUnits = 0;
      for (let round = 0; round < options.rounds; round++) {
        const before = { ...meter };
        const started = performance.now();
        last = await read();
        samplesMs.push(performance.now() - started);
        const used = usedSince(before, meter);
        requests = used.requests;
        capacityUnits = used.readUnits + used.writeUnits;
      }
      return { cost: { samplesMs, p50Ms: median(samplesMs), requests, capacityUnits }, last: last as T };
    };

    const loadBefore = loadavg();
    for (const { name, query } of GROUPS)
      await call("createGroup", { path: {}, query: {}, body: { name, query } });
    // The sweeper's settings, due at every round (interval 0): a whole pass a round, in the bounded steps the
    // sweeper's runs take it in, one a run.
    const sweeper = sweeperConfig(consoleEnv);
    const tableName = env[EnvNames.tableName] as string;
    const counting = composeGroupCounting(
      {
        groups: new DynamoGroupStore(documents, tableName),
        manifests: new DynamoManifestCatalog(documents, tableName),
        registry: new DynamoFleetRegistry(documents, tableName),
        catalog: new DynamoClassCatalog(documents, tableName),
        hotState: new RedisFleetHotState(redis),
        clock: { now: () => Date.now() },
      },
      { ...sweeper, groupCounting: { ...sweeper.groupCounting, intervalMs: 0 } },
    );
    const pass = await measure(async () => {
      const whole = { runs: 0, reads: 0, agents: 0 };
      for (let ended = false; !ended; whole.runs++) {
        const step = await counting.step(
          tenant,
          sweeper.groupCounting.maxReadsPerRun,
          Number.POSITIVE_INFINITY,
        );
        whole.reads += step.reads;
        whole.agents += step.agents;
        ended = step.ended;
      }
      return whole;
    });
    log(`counting pass: ${pass.last.agents} agents in ${pass.cost.p50Ms.toFixed(0)} ms`);
    const list = await measure(() => call("listGroups", { path: {}, query: {} }));
    const groups: GroupResult[] = [];
    for (const { name, query } of GROUPS) {
      const count = await measure(() => call("getGroup", { path: { groupName: name }, query: {} }));
      const page = await measure(() =>
        call("listGroupAgents", { path: { groupName: name }, query: { limit: PAGE_ROWS } }),
      );
      const result = {
        name,
        query,
        members: count.last.memberCount as number,
        count: count.cost,
        firstPage: { ...page.cost, rows: (page.last.items as unknown[]).length },
      };
      groups.push(result);
      log(`${name}: ${result.members} members, counted in ${result.count.p50Ms.toFixed(0)} ms`);
    }
    // The label group's agents of the first class; batches of a 25th of them, then of a 50th (some 200 and 100
    // at 100,000 agents: a look reads its batch's operations all at once).
    const target = groups.find(({ name }) => name === ROLLOUT_TARGET.alike)?.members ?? 0;
    const rollout = await runGroupRollout({
      env: consoleEnv,
      tenant,
      className: FLEET_CLASSES[0],
      group: ROLLOUT_TARGET.group,
      batchSizes: [Math.max(2, Math.ceil(target / 25)), Math.max(1, Math.ceil(target / 50))],
      call,
      documents,
      meter,
      watching: seedDocuments,
      redis,
      log,
    });
    return {
      machine: thisMachine(),
      load: { before: loadBefore, after: loadavg() },
      fleet,
      pass: {
        ...pass.cost,
        agentsRead: pass.last.agents,
        registryReads: pass.last.reads,
        sweeperRuns: pass.last.runs,
      },
      list: list.cost,
      groups,
      rollout,
    };
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

/** The report as the bench prints it: the machine first, as its figures depend on it. */
export function groupsReportLines(report: GroupsReport, rounds: number): string[] {
  const { machine, load, fleet } = report;
  const loads = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
  const cost = ({ p50Ms, samplesMs, requests, capacityUnits }: ReadCost) =>
    `p50 ${p50Ms.toFixed(0).padStart(6)} ms (max ${Math.max(...samplesMs).toFixed(0)}), ` +
    `${requests} DynamoDB requests, ${capacityUnits.toFixed(1)} read units`;
  return [
    `machine: ${machine.cores} × ${machine.cpu}, Node ${machine.node}`,
    `load average (1, 5, 15 min): ${loads(load.before)} before the reads, ${loads(load.after)} after`,
    `fleet: ${fleet.agents.toLocaleString("en")} agents in ${Object.keys(fleet.byClass).length} classes, ` +
      `written in ${fleet.seconds.toFixed(1)} s; ${fleet.byPresence.online} heartbeating`,
    `each read ${rounds} times; requests and read units of the last:`,
    `  counting pass of the ${report.groups.length} groups, ${report.pass.agentsRead.toLocaleString("en")} agents in ` +
      `${report.pass.registryReads} registry reads over ${report.pass.sweeperRuns} sweeper runs: ${cost(report.pass)}; ` +
      `${((report.pass.capacityUnits * 1000) / Math.max(report.pass.agentsRead, 1)).toFixed(1)} read units per 1,000 agents`,
    `  list (GET /groups)                    ${cost(report.list)}`,
    ...report.groups.flatMap((group) => [
      `  ${group.name} ${JSON.stringify(group.query)}: ${group.members.toLocaleString("en")} members`,
      `    group (GET /groups/{name})          ${cost(group.count)}`,
      `    first page (${String(group.firstPage.rows).padStart(2)} rows of /agents)    ${cost(group.firstPage)}`,
    ]),
    ...groupRolloutLines(report.rollout, ROLLOUT_PROJECTED_MEMBERS),
  ];
}

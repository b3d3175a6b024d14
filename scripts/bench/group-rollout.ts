/**
 * What a rollout to a group costs over a large fleet (`npm run bench:groups`, after the groups' reads): a flow
 * version rolled out to a group's members within one class, batch after batch, by the rollout engine as the
 * sweeper composes it (composeRolloutEngine) and runs it (advanceAll, a look a run); the members play their
 * part through the agent API's own composition in this process, as the tests' agents do over HTTP (a heartbeat
 * that takes the update, its FULLY_APPLIED acknowledgement, a heartbeat reporting the new flow). The rollout's
 * side (the console's start and the sweeper's looks) and the agents' side each go through a DynamoDB client of
 * their own that counts requests and capacity. Two rollouts over the same members at two batch sizes tell a
 * member's cost and a batch's apart.
 */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Cluster, Redis } from "ioredis";
import { DynamoRolloutStore } from "../../functions/adapters/dynamodb/rollout-store.js";
import { RedisFleetHotState } from "../../functions/adapters/redis/fleet-hot-state.js";
import { composeAgentApi } from "../../functions/agent-api/composition.js";
import type { ConsoleRoute } from "../../functions/console-api/routes.js";
import type { AnswerDeadlines } from "../../functions/core/agent-requests/answer-budget.js";
import { BeaconError } from "../../functions/core/errors.js";
import type { JsonObject } from "../../functions/core/json.js";
import { isRolloutFinal, type RolloutPlan } from "../../functions/core/rollouts/model.js";
import { composeEventStream } from "../../functions/runtime/event-stream.js";
import { randomIds, systemClock } from "../../functions/runtime/system.js";
import { agentApiConfig, sweeperConfig } from "../../functions/shared/config.js";
import { composeRolloutEngine } from "../../functions/sweeper/composition.js";
import { cppAckOf } from "../common/c2-examples.js";
import { cppYamlFlow } from "../test-support/flow-fixtures.js";
import { fleetAgent, fleetCredentialOf, fleetIndexOf, variedFleetAgent } from "./agent-fleet.js";
import { type DynamoUse, meteredClient, scaledUse, sumOfUses, usedSince } from "./dynamodb-meter.js";

/** The canary's share of the members. */
const CANARY_PERCENT = 5;
/** Members playing their part at once. */
const AGENTS_AT_ONCE = 16;
/**
 * The class's heartbeat interval during the rollouts: the agents the fleet was written with as heartbeating
 * count as online for three of them, so through the whole bench, without the steady heartbeats of every agent
 * (which cost no DynamoDB request) played meanwhile.
 */
const HEARTBEAT_INTERVAL_SECONDS = 3_600;
/** Times an agent sends a request that failed on the way. */
const AGENT_ATTEMPTS = 3;
/** What an agent's request may take here: DynamoDB Local on a busy machine, not an agent's 5 s wait. */
const AGENT_REQUEST_MS = 60_000;

export interface GroupRolloutOptions {
  /** The backends' environment, with the console's and the agent API's settings. */
  env: Record<string, string>;
  tenant: string;
  className: string;
  group: string;
  /** The two rollouts' batch sizes: the difference between their costs is the batches'. */
  batchSizes: readonly [number, number];
  /** The console API's call as the operator, on `documents`. */
  call: (operationId: string, input: Parameters<ConsoleRoute>[1]) => Promise<Record<string, unknown>>;
  /** The rollout's side's DynamoDB client (the console's), and what it counted. */
  documents: DynamoDBDocumentClient;
  meter: DynamoUse;
  /** A client that counts nothing, for the bench's own reads of the rollout. */
  watching: DynamoDBDocumentClient;
  redis: Redis | Cluster;
  log: (line: string) => void;
}

/** One rollout to its end: its members and batches, the sweeper's looks, and what each side used. */
export interface RolloutRun {
  batchSize: number;
  state: string;
  members: number;
  batches: number;
  looks: number;
  seconds: number;
  /** The console's start (the group's count, the checks, the canary's batch). */
  start: DynamoUse;
  /** The sweeper's looks, to the end. */
  looked: DynamoUse;
  /** The members' heartbeats and acknowledgements. */
  agents: DynamoUse;
  /** Agents' requests sent again and looks taken again, since the bench began, after a failure on the way. */
  failures: { agentRequests: number; looks: number };
}

export interface GroupRolloutReport {
  className: string;
  group: string;
  runs: RolloutRun[];
  /** The rollout's side: per member, and per batch apart from its members (the two runs' difference). */
  perMember: DynamoUse;
  perBatch: DynamoUse;
  /** The agents' side, per member. */
  agentsPerMember: DynamoUse;
}

export async function runGroupRollout(options: GroupRolloutOptions): Promise<GroupRolloutReport> {
  const { env, tenant, className, group, call, log } = options;
  const config = sweeperConfig(env);
  const { events } = composeEventStream(options.documents, options.redis, config);
  const hotState = new RedisFleetHotState(options.redis);
  const { rollouts: engine } = composeRolloutEngine(
    options.documents,
    hotState,
    events,
    config,
    systemClock,
    randomIds,
  );
  const agentSide = meteredClient(env);
  const agentApi = composeAgentApi(agentApiConfig(env), () => {}, agentSide.documents);
  const rolloutStore = new DynamoRolloutStore(options.watching, config.tableName);
  const credential = fleetCredentialOf(tenant);
  const deadlines = (): AnswerDeadlines => ({
    storageBy: Date.now() + AGENT_REQUEST_MS,
    streamBy: Date.now() + AGENT_REQUEST_MS,
  });

  /** Failures a DynamoDB Local on a busy machine gave (a connection not made within its second). */
  const failures = { agentRequests: 0, looks: 0 };
  /** An agent's request, sent again when it failed on the way (not refused), as the agent would. */
  const again = async <T>(request: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await request();
      } catch (error) {
        if (error instanceof BeaconError || attempt >= AGENT_ATTEMPTS) throw error;
        failures.agentRequests++;
      }
    }
  };

  /** The agent's light heartbeat, reporting the binary and flow the cache has for it now. */
  const heartbeatOf = (agentId: string, manifestHash: string | undefined, flowId: string | undefined) => {
    const { kind, agentClass } = fleetAgent(fleetIndexOf(agentId));
    const heartbeat = variedFleetAgent(agentId, kind, agentClass).light();
    if (manifestHash !== undefined) (heartbeat.agentInfo as JsonObject).agentManifestHash = manifestHash;
    if (flowId !== undefined) heartbeat.flowInfo = { ...(heartbeat.flowInfo as JsonObject), flowId };
    return heartbeat;
  };

  /** A member's turn: the heartbeat that takes its update, the acknowledgement, the heartbeat on the new flow. */
  const turn = async (agentId: string, manifestHash: string | undefined, flowId: string | undefined) => {
    const beat = (flow: string | undefined) =>
      again(() =>
        agentApi.recordHeartbeat(deadlines(), credential, heartbeatOf(agentId, manifestHash, flow)),
      );
    const { reply } = await beat(flowId);
    let now = flowId;
    for (const update of reply.requestedOperations) {
      if (update.operation !== "UPDATE" || update.operand !== "CONFIGURATION") continue;
      await again(() =>
        agentApi.recordAck(deadlines(), credential, cppAckOf(agentId, update.identifier, "FULLY_APPLIED")),
      );
      now = update.args?.flowId as string;
    }
    if (now !== flowId) await beat(now);
  };

  /** The batch's members still updating take their turns, a few at once. */
  const turns = async (agentIds: string[]) => {
    const hot = await hotState.agents(tenant, agentIds);
    let next = 0;
    const player = async () => {
      while (next < agentIds.length) {
        const agentId = agentIds[next++] as string;
        const state = hot.get(agentId);
        await turn(agentId, state?.manifestHash, state?.flowId);
      }
    };
    await Promise.all(Array.from({ length: AGENTS_AT_ONCE }, player));
  };

  /** A version of the C++ YAML flow published to the class; its hash. */
  const publish = async (name: string) => {
    const body = new TextEncoder().encode(cppYamlFlow.replace("name: pumps", `name: ${name}`));
    return (await call("uploadFlow", { path: { className }, query: {}, body })).hash as string;
  };

  const rollOut = async (flowHash: string, batchSize: number): Promise<RolloutRun> => {
    const started = performance.now();
    const agentsBefore = { ...agentSide.meter };
    const beforeStart = { ...options.meter };
    const plan: RolloutPlan = {
      canary: { percent: CANARY_PERCENT },
      batchSize,
      batchIntervalSeconds: 0,
      soakSeconds: 0,
      failureThreshold: { percent: 5 },
      onFailure: "pause",
    };
    // The Java agents' manifests lack the C++ flow's types: the dry run would refuse it for them.
    const body = { className, group, flowHash, plan, allowIncompatible: true };
    const { rolloutId } = (await call("startRollout", { path: {}, query: {}, body })) as {
      rolloutId: string;
    };
    const start = usedSince(beforeStart, options.meter);
    const beforeLooks = { ...options.meter };
    let looks = 0;
    for (;;) {
      const rollout = await rolloutStore.get(tenant, rolloutId);
      if (!rollout) throw new Error(`rollout ${rolloutId} is gone`);
      if (isRolloutFinal(rollout.state) || rollout.state === "paused") {
        const run = {
          batchSize,
          state: rollout.state,
          members: rollout.counts.selected,
          batches: rollout.batches,
          looks,
          seconds: (performance.now() - started) / 1000,
          start,
          looked: usedSince(beforeLooks, options.meter),
          agents: usedSince(agentsBefore, agentSide.meter),
          failures: { ...failures },
        };
        log(
          `rollout of batches of ${batchSize}: ${run.state}, ${run.members} members in ${run.batches} batches, ` +
            `${looks} looks, ${run.seconds.toFixed(1)} s`,
        );
        return run;
      }
      // A look a batch takes at most: updating, soaking, healthy and the next; and one to end.
      if (looks > 4 * (Math.ceil(rollout.classSize / batchSize) + 2))
        throw new Error(`rollout ${rolloutId} still ${rollout.state} after ${looks} looks`);
      const updating = (await rolloutStore.members(tenant, rolloutId, rollout.batches - 1)).filter(
        (member) => member.state === "updating",
      );
      await turns(updating.map((member) => member.agentId));
      // One look, as a sweeper run takes it (advanceAll looks at every tenant's rollouts: a test's stack has
      // others); one that failed is taken again, as the sweeper's next run would.
      try {
        await engine.advance(tenant, rolloutId);
      } catch (error) {
        if (error instanceof BeaconError) throw error;
        failures.looks++;
      }
      looks++;
    }
  };

  try {
    await call("putClass", {
      path: { className },
      query: {},
      body: { heartbeatIntervalSeconds: HEARTBEAT_INTERVAL_SECONDS },
    });
    const runs: RolloutRun[] = [];
    for (const [index, batchSize] of options.batchSizes.entries())
      runs.push(await rollOut(await publish(`bench-v${index + 1}`), batchSize));
    const [wide, narrow] = runs as [RolloutRun, RolloutRun];
    const total = (run: RolloutRun) => sumOfUses(run.start, run.looked);
    const perBatch = scaledUse(
      usedSince(total(wide), total(narrow)),
      1 / Math.max(narrow.batches - wide.batches, 1),
    );
    const perMember = scaledUse(
      usedSince(scaledUse(perBatch, wide.batches), total(wide)),
      1 / Math.max(wide.members, 1),
    );
    return {
      className,
      group,
      runs,
      perMember,
      perBatch,
      agentsPerMember: scaledUse(
        sumOfUses(wide.agents, narrow.agents),
        1 / Math.max(wide.members + narrow.members, 1),
      ),
    };
  } finally {
    await agentApi.close();
  }
}

/** The report's lines, and what a rollout to a group of `members` would cost at the measured rates. */
export function groupRolloutLines(report: GroupRolloutReport, members: number): string[] {
  const use = ({ requests, writeRequests, readUnits, writeUnits }: DynamoUse, digits = 0) =>
    `${requests.toFixed(digits)} requests (${writeRequests.toFixed(digits)} writes), ` +
    `${readUnits.toFixed(digits)} read units, ${writeUnits.toFixed(digits)} write units`;
  const [wide] = report.runs as [RolloutRun];
  // The canary, then batches of the first run's size.
  const batches = 1 + Math.ceil((members * (100 - CANARY_PERCENT)) / 100 / wide.batchSize);
  const projected = sumOfUses(scaledUse(report.perMember, members), scaledUse(report.perBatch, batches));
  return [
    `rollouts to group ${report.group} within class ${report.className}, by the sweeper's engine:`,
    ...report.runs.flatMap((run) => [
      `  batches of ${run.batchSize}: ${run.state}, ${run.members.toLocaleString("en")} members in ${run.batches} ` +
        `batches, ${run.looks} looks, ${run.seconds.toFixed(1)} s; requests sent again ${run.failures.agentRequests}, ` +
        `looks taken again ${run.failures.looks}`,
      `    start (console)   ${use(run.start)}`,
      `    looks (sweeper)   ${use(run.looked)}`,
      `    agents' requests  ${use(run.agents)}`,
    ]),
    `  rollout's side per member  ${use(report.perMember, 2)}`,
    `  rollout's side per batch   ${use(report.perBatch, 1)}`,
    `  agents' side per member    ${use(report.agentsPerMember, 2)}`,
    `  a rollout to ${members.toLocaleString("en")} members in batches of ${wide.batchSize}: ${use(projected)}, ` +
      `and the agents' ${use(scaledUse(report.agentsPerMember, members))}`,
  ];
}

import { randomUUID } from "node:crypto";
import type { Cluster, Redis } from "ioredis";
import {
  CACHED_ATTENTION_REASONS,
  type CachedAttentionFacts,
  type CachedAttentionReason,
  factsOfScores,
  type ListedAttentionReason,
} from "../../core/agents/attention.js";
import { loadSampleOfText } from "../../core/agents/load-samples.js";
import type { AgentAssignment, AgentOwnValues, AgentPin } from "../../core/agents/ports.js";
import {
  type AttentionPageRequest,
  type AttentionPosition,
  attentionScoreRange,
  pageOfPositions,
} from "../../core/fleet/attention-pages.js";
import type { ClassAgentCounts, FleetHotState, HotAgentState } from "../../core/fleet/ports.js";
import type { CachedClassFlow } from "../../core/flows/policy.js";
import { execute } from "./batch.js";
import { CacheKeys } from "./cache-keys.js";
import { isCacheUsable } from "./cache-status.js";
import {
  ASSIGNMENT_FIELD,
  assignmentText,
  OWN_VALUES_DERIVED_FIELDS,
  OWN_VALUES_FIELD,
  ownValuesText,
  PIN_FIELD,
  pinText,
  REMEMBER_AGENT_FIELD_SCRIPT,
  rememberClassFlow,
} from "./class-flow-cache.js";
import { CacheUnavailableError } from "./hot-state.js";
import { defineOperationOutcome, recordOperationOutcome } from "./operation-outcome-script.js";

/** The agent hash's fields the console reads, as the agent API writes them (JSON for the structured ones). */
const AGENT_FIELDS = [
  "lastSeen",
  "agentClass",
  "manifestHash",
  "flowId",
  "runStatus",
  "status",
  "device",
  "repositories",
  "queues",
  "bulletins",
  "processors",
  "resourceHash",
  "system",
  "configurationChecksums",
] as const;

/**
 * Adds a revoked serial to the cache's copy of the revocation list only while the cache holds one:
 * a hash this wrote from nothing would look like a list and hide the serials it lacks. Without a
 * copy, the agent API loads the list from the registry, where the serial already is.
 */
const ADD_REVOKED_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 0
`;

interface ScriptedRedis {
  addRevokedSerial(key: string, serial: string, revokedAt: number): Promise<number>;
  rememberAgentField(key: string, field: string, value: string, ...derived: string[]): Promise<number>;
}

/** The console's reads of the agent API's hot state. All of a tenant's keys share one slot (its hash tag). */
export class RedisFleetHotState implements FleetHotState {
  private readonly redis: (Redis | Cluster) & ScriptedRedis;

  constructor(redis: Redis | Cluster) {
    redis.defineCommand("addRevokedSerial", { numberOfKeys: 1, lua: ADD_REVOKED_SCRIPT });
    redis.defineCommand("rememberAgentField", { numberOfKeys: 1, lua: REMEMBER_AGENT_FIELD_SCRIPT });
    defineOperationOutcome(redis);
    this.redis = redis as (Redis | Cluster) & ScriptedRedis;
  }

  private usable() {
    if (!isCacheUsable(this.redis)) throw new CacheUnavailableError(this.redis.status);
    return this.redis;
  }

  async agents(tenant: string, agentIds: string[]) {
    const pipeline = this.usable().pipeline();
    for (const agentId of agentIds) pipeline.hmget(CacheKeys.agent(tenant, agentId), ...AGENT_FIELDS);
    const replies = await execute<(string | null)[]>(pipeline);
    const states = new Map<string, HotAgentState>();
    agentIds.forEach((agentId, index) => {
      const values = replies[index] ?? [];
      const field = (name: (typeof AGENT_FIELDS)[number]) => values[AGENT_FIELDS.indexOf(name)] ?? undefined;
      if (values.every((value) => value === null)) return;
      const lastSeen = field("lastSeen");
      states.set(agentId, {
        lastSeen: lastSeen === undefined ? undefined : Number(lastSeen),
        agentClass: field("agentClass"),
        manifestHash: field("manifestHash"),
        flowId: field("flowId"),
        runStatus: field("runStatus"),
        status: parsed(field("status")),
        device: parsed(field("device")),
        repositories: parsed(field("repositories")),
        queues: parsed(field("queues")),
        bulletins: parsed(field("bulletins")),
        processors: parsed(field("processors")),
        resourceHash: resourceHashOf(field("resourceHash")),
        system: parsed(field("system")),
        configurationChecksums: parsed(field("configurationChecksums")),
      });
    });
    return states;
  }

  async loadSamples(tenant: string, agentId: string) {
    const entries = await this.usable().lrange(CacheKeys.loadSamples(tenant, agentId), 0, -1);
    return entries.flatMap((entry) => loadSampleOfText(entry) ?? []).reverse();
  }

  async classCounts(tenant: string, classes: { name: string; onlineSince: number }[]) {
    const pipeline = this.usable().pipeline();
    for (const { name, onlineSince } of classes) {
      const key = CacheKeys.classIndex(tenant, name);
      pipeline.zcard(key).zcount(key, onlineSince, "+inf");
    }
    const replies = await execute<number>(pipeline);
    const counts = new Map<string, ClassAgentCounts>();
    classes.forEach(({ name }, index) => {
      counts.set(name, { total: replies[2 * index] ?? 0, online: replies[2 * index + 1] ?? 0 });
    });
    return counts;
  }

  async attentionCounts(tenant: string, classes: string[], now: number) {
    const pipeline = this.usable().pipeline();
    for (const className of classes)
      for (const reason of CACHED_ATTENTION_REASONS)
        pipeline.zcount(CacheKeys.attention(tenant, className, reason), lowestHolding(reason, now), "+inf");
    const replies = await execute<number>(pipeline);
    const counts = new Map<string, Record<CachedAttentionReason, number>>();
    classes.forEach((className, classIndex) => {
      const ofClass = CACHED_ATTENTION_REASONS.map(
        (reason, index) =>
          [reason, replies[classIndex * CACHED_ATTENTION_REASONS.length + index] ?? 0] as const,
      );
      counts.set(className, Object.fromEntries(ofClass) as Record<CachedAttentionReason, number>);
    });
    return counts;
  }

  async attentionPage(
    tenant: string,
    classes: { name: string; onlineSince: number }[],
    reason: ListedAttentionReason,
    now: number,
    request: AttentionPageRequest,
  ) {
    const { after, limit, descending } = request;
    const pipeline = this.usable().pipeline();
    const ranges = classes.map(({ name, onlineSince }) => {
      const key =
        reason === "offline" ? CacheKeys.classIndex(tenant, name) : CacheKeys.attention(tenant, name, reason);
      const range = attentionScoreRange(reason, onlineSince, now);
      // Past the position it starts after; the agents sharing that position's score are read apart.
      const page = { ...range };
      if (after !== undefined && descending) page.below = Math.min(range.below ?? after.score, after.score);
      if (after !== undefined && !descending) page.above = Math.max(range.above ?? after.score, after.score);
      const low = page.above === undefined ? "-inf" : `(${page.above}`;
      const high = page.below === undefined ? "+inf" : `(${page.below}`;
      if (descending) pipeline.zrevrangebyscore(key, high, low, "WITHSCORES", "LIMIT", 0, limit);
      else pipeline.zrangebyscore(key, low, high, "WITHSCORES", "LIMIT", 0, limit);
      if (after !== undefined) pipeline.zrangebyscore(key, after.score, after.score, "WITHSCORES");
      return range;
    });
    const replies = await execute<string[]>(pipeline);
    const perClass = after === undefined ? 1 : 2;
    const ofClasses = ranges.flatMap((range, index) =>
      pageOfPositions(
        replies.slice(index * perClass, (index + 1) * perClass).flatMap(positionsOf),
        range,
        request,
      ),
    );
    return pageOfPositions(ofClasses, {}, request);
  }

  async attentionOf(tenant: string, agents: { agentId: string; agentClass: string }[], now: number) {
    const pipeline = this.usable().pipeline();
    for (const { agentId, agentClass } of agents)
      for (const reason of CACHED_ATTENTION_REASONS)
        pipeline.zscore(CacheKeys.attention(tenant, agentClass, reason), agentId);
    const replies = await execute<string | null>(pipeline);
    const facts = new Map<string, CachedAttentionFacts>();
    agents.forEach(({ agentId }, agentIndex) => {
      const scores = Object.fromEntries(
        CACHED_ATTENTION_REASONS.map((reason, index) => {
          const score = replies[agentIndex * CACHED_ATTENTION_REASONS.length + index] ?? null;
          return [reason, score === null ? null : Number(score)];
        }),
      ) as Record<CachedAttentionReason, number | null>;
      // ERROR bulletins past their time hold no more, though their entry stays until the next is recorded.
      if (scores.errorBulletins !== null && scores.errorBulletins <= now) scores.errorBulletins = null;
      facts.set(agentId, factsOfScores(scores));
    });
    return facts;
  }

  async heartbeatsPerMinute(tenant: string, epochMinutes: number[]) {
    const keys = epochMinutes.map((minute) => CacheKeys.heartbeatsInMinute(tenant, minute));
    const counts = await this.usable().mget(...keys);
    return counts.map((count) => Number(count ?? 0));
  }

  async heartbeatTotals(tenant: string, classes: string[]) {
    const counts =
      classes.length === 0 ? [] : await this.usable().hmget(CacheKeys.heartbeatTotals(tenant), ...classes);
    return new Map(classes.map((name, index) => [name, Number(counts[index] ?? 0)]));
  }

  async forgetAgent(tenant: string, agentId: string, agentClasses: string[]) {
    // Without its hash the agent counts as unknown to the cache, and its next heartbeat looks at its queue anyway.
    // A forgotten agent's silence is no outage to announce.
    const transaction = this.usable()
      .multi()
      .del(
        CacheKeys.agent(tenant, agentId),
        CacheKeys.pendingOperations(tenant, agentId),
        CacheKeys.loadSamples(tenant, agentId),
      )
      .hdel(CacheKeys.restarts(tenant), agentId)
      .zrem(CacheKeys.offlineDue(tenant), agentId)
      .hdel(CacheKeys.offlineDueAgents(tenant), agentId);
    for (const agentClass of agentClasses) {
      transaction.zrem(CacheKeys.classIndex(tenant, agentClass), agentId);
      for (const reason of CACHED_ATTENTION_REASONS)
        transaction.zrem(CacheKeys.attention(tenant, agentClass, reason), agentId);
    }
    await execute(transaction);
  }

  async recordOperationOutcome(
    tenant: string,
    agentId: string,
    agentClass: string | undefined,
    failed: boolean,
    at: number,
  ) {
    await recordOperationOutcome(this.usable(), tenant, agentId, agentClass, failed, at);
  }

  async markOperationsPending(tenant: string, agentIds: string[]) {
    const pipeline = this.usable().pipeline();
    for (const agentId of agentIds) pipeline.incr(CacheKeys.pendingOperations(tenant, agentId));
    await execute(pipeline);
  }

  async groupsChanged(tenant: string) {
    await this.usable().set(CacheKeys.groupsVersion(tenant), randomUUID());
  }

  async rememberOwnValues(tenant: string, agentId: string, ownValues: AgentOwnValues) {
    await this.usable().rememberAgentField(
      CacheKeys.agent(tenant, agentId),
      OWN_VALUES_FIELD,
      ownValuesText(ownValues) ?? "",
      ...OWN_VALUES_DERIVED_FIELDS,
    );
  }

  async rememberPin(tenant: string, agentId: string, pin: AgentPin | undefined) {
    await this.usable().rememberAgentField(CacheKeys.agent(tenant, agentId), PIN_FIELD, pinText(pin) ?? "");
  }

  async rememberAssignment(tenant: string, agentId: string, assignment: AgentAssignment | undefined) {
    await this.usable().rememberAgentField(
      CacheKeys.agent(tenant, agentId),
      ASSIGNMENT_FIELD,
      assignmentText(assignment) ?? "",
    );
  }

  async revokeSerial(tenant: string, serial: string, revokedAt: number) {
    await this.usable().addRevokedSerial(CacheKeys.revokedSerials(tenant), serial, revokedAt);
  }

  async rememberClassFlow(
    tenant: string,
    className: string,
    policy: CachedClassFlow | undefined,
    heartbeatPeriodMs: number,
  ) {
    await rememberClassFlow(this.usable(), tenant, className, policy, heartbeatPeriodMs);
  }
}

/** The members and scores of a sorted set's reply WITHSCORES. */
function positionsOf(reply: string[]): AttentionPosition[] {
  const positions: AttentionPosition[] = [];
  for (let index = 0; index + 1 < reply.length; index += 2)
    positions.push({ agentId: reply[index] as string, score: Number(reply[index + 1]) });
  return positions;
}

/** The lowest score at which the reason holds at `now`: ERROR bulletins are scored by until when they hold. */
const lowestHolding = (reason: CachedAttentionReason, now: number) =>
  reason === "errorBulletins" ? `(${now}` : "-inf";

/** The agent API writes "" for an agent that reports it holds no resource. */
const resourceHashOf = (value: string | undefined): string | null | undefined =>
  value === "" ? null : value;

/** A field the agent API wrote as JSON; anything unreadable counts as absent. */
function parsed<T>(value: string | undefined): T | undefined {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as T;
  } catch {
    return undefined;
  }
}

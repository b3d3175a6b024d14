import type { Cluster, Redis } from "ioredis";
import type { SupportedOperations } from "../../core/c2/manifest.js";
import type { HotSighting, HotSightingResult, HotState } from "../../core/ports.js";
import { RECORD_SIGHTING_SCRIPT } from "./record-sighting-script.js";

/** Agents unheard of for this long drop out of the cache; the registry still has them. */
const AGENT_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Every key of a tenant carries the tenant as its hash tag, so one heartbeat's keys share a cluster
 * slot and one script can touch them all (ElastiCache Serverless runs in cluster mode).
 */
export const CacheKeys = {
  tag: (tenant: string) => `{t:${tenant}}`,
  agent: (tenant: string, agentId: string) => `{t:${tenant}}:agent:${agentId}`,
  manifests: (tenant: string) => `{t:${tenant}}:manifests`,
  classes: (tenant: string) => `{t:${tenant}}:classes`,
  classIndexPrefix: (tenant: string) => `{t:${tenant}}:class-seen:`,
} as const;

export class CacheUnavailableError extends Error {
  constructor(status: string) {
    super(`The cache is unreachable (connection ${status})`);
    this.name = "CacheUnavailableError";
  }
}

/** Statuses in which a command can still be answered soon; in any other the client is between reconnects. */
const USABLE_STATUSES = new Set(["ready", "connect", "connecting", "wait"]);

type RecordSightingReply = [string, string, string, string, string, string, string, string, number, string];

interface ScriptedRedis {
  recordSighting(...keysAndArgs: (string | number)[]): Promise<RecordSightingReply>;
}

export class RedisHotState implements HotState {
  private readonly redis: (Redis | Cluster) & ScriptedRedis;

  constructor(redis: Redis | Cluster) {
    // defineCommand sends EVALSHA and falls back to EVAL once per connection: one round trip a call.
    redis.defineCommand("recordSighting", { numberOfKeys: 2, lua: RECORD_SIGHTING_SCRIPT });
    this.redis = redis as (Redis | Cluster) & ScriptedRedis;
  }

  /** Fails at once while the server is known to be down, so a heartbeat falls back without waiting. */
  private usable(): (Redis | Cluster) & ScriptedRedis {
    if (!USABLE_STATUSES.has(this.redis.status)) throw new CacheUnavailableError(this.redis.status);
    return this.redis;
  }

  async recordSighting(sighting: HotSighting): Promise<HotSightingResult> {
    const { tenant, agentId, now } = sighting;
    const fields: Record<string, string | undefined> = {
      lastSeen: String(now),
      agentClass: sighting.agentClass,
      manifestHash: sighting.manifestHash,
      flowId: sighting.flowId,
      runStatus: sighting.runStatus,
      status: sighting.status && JSON.stringify(sighting.status),
      device: sighting.device && JSON.stringify(sighting.device),
    };
    const pairs = Object.entries(fields).flatMap(([name, value]) =>
      value === undefined ? [] : [name, value],
    );
    const reply = await this.usable().recordSighting(
      CacheKeys.agent(tenant, agentId),
      CacheKeys.manifests(tenant),
      now,
      sighting.checkpointIntervalMs,
      CacheKeys.classIndexPrefix(tenant),
      agentId,
      AGENT_TTL_SECONDS,
      ...pairs,
    );
    const [
      registered,
      agentClass,
      manifestHash,
      flowId,
      previousClass,
      previousHash,
      previousFlow,
      operations,
      due,
      describeUntil,
    ] = reply;
    return {
      registered: registered === "1",
      agentClass: agentClass || undefined,
      manifestHash: manifestHash || undefined,
      flowId: flowId || undefined,
      previousAgentClass: previousClass || undefined,
      previousManifestHash: previousHash || undefined,
      previousFlowId: previousFlow || undefined,
      supportedOperations: operations ? (JSON.parse(operations) as SupportedOperations) : undefined,
      checkpointDue: Number(due) === 1,
      describePendingUntil: describeUntil ? Number(describeUntil) : undefined,
    };
  }

  async markRegistered(tenant: string, agentId: string, now: number): Promise<void> {
    await this.usable().hset(CacheKeys.agent(tenant, agentId), {
      registered: "1",
      checkpointAt: String(now),
    });
  }

  async rememberClass(tenant: string, agentClass: string): Promise<boolean> {
    return (await this.usable().sadd(CacheKeys.classes(tenant), agentClass)) === 1;
  }

  async rememberManifest(
    tenant: string,
    hash: string,
    supportedOperations: SupportedOperations,
  ): Promise<void> {
    await this.usable().hset(CacheKeys.manifests(tenant), hash, JSON.stringify(supportedOperations));
  }

  async rememberDescribe(tenant: string, agentId: string, pendingUntil: number | undefined): Promise<void> {
    const key = CacheKeys.agent(tenant, agentId);
    const redis = this.usable();
    if (pendingUntil === undefined) await redis.hdel(key, "describeUntil");
    else await redis.hset(key, "describeUntil", String(pendingUntil));
  }
}

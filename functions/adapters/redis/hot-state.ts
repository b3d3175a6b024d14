import type { Cluster, Redis } from "ioredis";
import { CACHED_ATTENTION_REASONS } from "../../core/agents/attention.js";
import { loadSampleOf, loadSampleText } from "../../core/agents/load-samples.js";
import type {
  CacheRegistration,
  HotSighting,
  HotSightingResult,
  HotState,
  SightingOutcome,
} from "../../core/agents/ports.js";
import { DEFAULT_HEARTBEAT_INTERVAL_SECONDS, MISSED_HEARTBEATS_OFFLINE } from "../../core/agents/status.js";
import type { SupportedOperations } from "../../core/c2/manifest.js";
import type { ProcessorStatus } from "../../core/c2/model.js";
import type { CachedClassFlow } from "../../core/flows/policy.js";
import type { CachedRevocation } from "../../core/identity/ports.js";
import type { KnownManifest } from "../../core/manifests/agent-manifest.js";
import { execute } from "./batch.js";
import { CacheKeys } from "./cache-keys.js";
import { isCacheUsable } from "./cache-status.js";
import {
  ASSIGNMENT_FIELD,
  assignmentText,
  OWN_VALUES_FIELD,
  ownValuesText,
  PIN_FIELD,
  pinText,
  rememberClassFlow,
} from "./class-flow-cache.js";
import { defineOperationOutcome, recordOperationOutcome } from "./operation-outcome-script.js";
import {
  CLEAR_PENDING_SCRIPT,
  MARK_REGISTERED_SCRIPT,
  RECORD_SIGHTING_SCRIPT,
  REMEMBER_MANIFEST_SCRIPT,
} from "./record-sighting-script.js";

/** Agents unheard of for this long drop out of the cache; the registry still has them. */
const AGENT_TTL_SECONDS = 7 * 24 * 3600;

/**
 * How long the cache's copy of a tenant's revocation list lives before it is reloaded from the
 * registry. A revocation normally reaches the cache at once; this bounds how long a revocation made
 * while the cache was unreachable can go unseen.
 */
export const REVOCATION_LIST_TTL_SECONDS = 300;

/** Heartbeats per minute are counted per tenant and kept this long, for the console's fleet summary. */
const HEARTBEAT_COUNTER_TTL_SECONDS = 2 * 3600;

/** Marks a revocation list as loaded, so an empty list is told apart from one never loaded. */
const LOADED_FIELD = "#loaded";

export class CacheUnavailableError extends Error {
  constructor(status: string) {
    super(`The cache is unreachable (connection ${status})`);
    this.name = "CacheUnavailableError";
  }
}

/** The sighting script's reply: refused, the class the cache holds, or recorded with name/value pairs. */
type RecordSightingReply = ["unknown" | "revoked"] | ["class", string] | ["recorded", ...(string | number)[]];

/** What the heartbeat learns from the script's name/value pairs, each value read by its name. */
function recordedSighting(pairs: (string | number)[]): HotSightingResult {
  const values = new Map<string, string | number>();
  for (let index = 0; index < pairs.length; index += 2)
    values.set(String(pairs[index]), pairs[index + 1] as string | number);
  const text = (name: string) => values.get(name)?.toString();
  const number = (name: string) => (values.has(name) ? Number(values.get(name)) : undefined);
  const flag = (name: string) => values.get(name) === 1;
  const json = <T>(name: string) =>
    values.has(name) ? (JSON.parse(String(values.get(name))) as T) : undefined;
  const catchUpHash = text("catchUpHash");
  const runStatus = text("runStatus");
  const processors = json<ProcessorStatus[]>("processors");
  return {
    registered: flag("registered"),
    agentClass: text("agentClass"),
    manifestHash: text("manifestHash"),
    flowId: text("flowId"),
    previous: {
      agentClass: text("previousAgentClass"),
      manifestHash: text("previousManifestHash"),
      flowId: text("previousFlowId"),
      // The script leaves out "", both never reported and null (the agent holds no resource): neither is a
      // hash an operation left.
      resourceHash: text("previousResourceHash"),
    },
    previousBulletinsThrough: number("previousBulletinsThrough"),
    manifestId: text("manifestId"),
    supportedOperations: json<SupportedOperations>("supportedOperations"),
    checkpointDue: flag("checkpointDue"),
    deviceChanged: flag("deviceChanged"),
    sequence: Number(values.get("sequence")),
    describePendingUntil: number("describePendingUntil"),
    operationsPending: text("operationsPending"),
    offlineLastSeen: number("offlineLastSeen"),
    catchUp: catchUpHash
      ? {
          hash: catchUpHash,
          flowId: text("catchUpFlowId") ?? catchUpHash,
          ackTimeoutMs: number("catchUpAckTimeoutMs"),
        }
      : undefined,
    classFlowUnknown: flag("classFlowUnknown"),
    // Said only when true: Beacon's own certificates are never recorded so.
    certificateRecorded: flag("certificateRecorded") || undefined,
    groupsVersion: text("groupsVersion"),
    // Sent only while the pending-operation marker is set.
    runStatuses: runStatus || processors ? { runStatus, processors } : undefined,
  };
}

/** The keys of REMEMBER_MANIFEST_FUNCTION (record-sighting-script.ts). */
const manifestKeys = (tenant: string, agentId: string) => [
  CacheKeys.agent(tenant, agentId),
  CacheKeys.offlineDue(tenant),
  CacheKeys.offlineDueAgents(tenant),
];

/** The arguments of REMEMBER_MANIFEST_FUNCTION; without a manifest, its hash '' tells it there is none. */
const manifestArguments = (agentId: string, manifest: KnownManifest | undefined) => [
  agentId,
  AGENT_TTL_SECONDS,
  MISSED_HEARTBEATS_OFFLINE,
  manifest?.hash ?? "",
  manifest?.manifestId ?? "",
  manifest ? JSON.stringify(manifest.supportedOperations) : "",
  manifest?.heartbeatPeriodMs ?? "",
];

interface ScriptedRedis {
  recordSighting(...keysAndArgs: (string | number)[]): Promise<RecordSightingReply>;
  clearPending(key: string, version: string): Promise<number>;
  rememberManifest(...keysAndArgs: (string | number)[]): Promise<number>;
  markRegistered(...keysAndArgs: (string | number)[]): Promise<number>;
}

export class RedisHotState implements HotState {
  private readonly redis: (Redis | Cluster) & ScriptedRedis;

  constructor(redis: Redis | Cluster) {
    // defineCommand sends EVALSHA and falls back to EVAL once per connection: one round trip a call.
    redis.defineCommand("recordSighting", { numberOfKeys: 25, lua: RECORD_SIGHTING_SCRIPT });
    redis.defineCommand("rememberManifest", { numberOfKeys: 3, lua: REMEMBER_MANIFEST_SCRIPT });
    redis.defineCommand("markRegistered", { numberOfKeys: 4, lua: MARK_REGISTERED_SCRIPT });
    redis.defineCommand("clearPending", { numberOfKeys: 1, lua: CLEAR_PENDING_SCRIPT });
    defineOperationOutcome(redis);
    this.redis = redis as (Redis | Cluster) & ScriptedRedis;
  }

  /** Fails at once while the server is known to be down, so a heartbeat falls back without waiting. */
  private usable(): (Redis | Cluster) & ScriptedRedis {
    if (!isCacheUsable(this.redis)) throw new CacheUnavailableError(this.redis.status);
    return this.redis;
  }

  async recordSighting(sighting: HotSighting): Promise<SightingOutcome> {
    // A cluster requires a script to declare every key it touches, the class's among them. The steady
    // heartbeat reports the class the cache holds already: one call. One without a class, or with a new
    // one, is told the class the cache holds by a first call that changes nothing, and makes a second.
    const reported = sighting.agentClass ?? "";
    let reply = await this.runRecordSighting(sighting, reported, reported);
    if (reply[0] === "class") {
      const storedClass = reply[1];
      reply = await this.runRecordSighting(sighting, sighting.agentClass ?? storedClass, storedClass);
      // Only another heartbeat of the agent changing its class between the two calls gets here.
      if (reply[0] === "class") throw new Error("The agent's class changed during its heartbeat");
    }
    if (reply[0] !== "recorded") return { recorded: false, revocation: reply[0] };
    return { recorded: true, sighting: recordedSighting(reply.slice(1)) };
  }

  /** One call of the sighting script, declaring the keys of the class `agentClass` and of `storedClass`. */
  private runRecordSighting(
    sighting: HotSighting,
    agentClass: string,
    storedClass: string,
  ): Promise<RecordSightingReply> {
    const { tenant, agentId, now } = sighting;
    const fields: Record<string, string | undefined> = {
      lastSeen: String(now),
      agentClass: sighting.agentClass,
      manifestHash: sighting.manifestHash,
      flowId: sighting.flowId,
      runStatus: sighting.runStatus,
      status: sighting.status && JSON.stringify(sighting.status),
      device: sighting.device && JSON.stringify(sighting.device),
      repositories: sighting.repositories && JSON.stringify(sighting.repositories),
      queues: sighting.queues && JSON.stringify(sighting.queues),
      bulletins: sighting.bulletins && JSON.stringify(sighting.bulletins),
      bulletinsThrough: sighting.bulletinsThrough?.toString(),
      processors: sighting.processors && JSON.stringify(sighting.processors),
      // A hash field holds strings only: "" stands for null, an agent that holds no resource.
      resourceHash: sighting.resourceHash === null ? "" : sighting.resourceHash,
      system: sighting.system && JSON.stringify(sighting.system),
      configurationChecksums:
        sighting.configurationChecksums && JSON.stringify(sighting.configurationChecksums),
    };
    const sample = loadSampleOf(now, sighting.status, sighting.system);
    const pairs = Object.entries(fields).flatMap(([name, value]) =>
      value === undefined ? [] : [name, value],
    );
    return this.usable().recordSighting(
      CacheKeys.agent(tenant, agentId),
      CacheKeys.revokedSerials(tenant),
      CacheKeys.heartbeatsInMinute(tenant, Math.floor(now / 60_000)),
      CacheKeys.pendingOperations(tenant, agentId),
      CacheKeys.catchUp(tenant, agentId),
      CacheKeys.classIndex(tenant, agentClass),
      CacheKeys.classFlow(tenant, agentClass),
      CacheKeys.classIndex(tenant, storedClass),
      CacheKeys.offlineMarks(tenant),
      CacheKeys.restarts(tenant),
      CacheKeys.offlineDue(tenant),
      CacheKeys.offlineDueAgents(tenant),
      ...CACHED_ATTENTION_REASONS.map((reason) => CacheKeys.attention(tenant, agentClass, reason)),
      ...CACHED_ATTENTION_REASONS.map((reason) => CacheKeys.attention(tenant, storedClass, reason)),
      CacheKeys.loadSamples(tenant, agentId),
      CacheKeys.heartbeatTotals(tenant),
      CacheKeys.groupsVersion(tenant),
      now,
      sighting.checkpointIntervalMs,
      agentId,
      AGENT_TTL_SECONDS,
      sighting.serialNumber,
      HEARTBEAT_COUNTER_TTL_SECONDS,
      sighting.catchUpRetryMs,
      agentClass,
      storedClass,
      MISSED_HEARTBEATS_OFFLINE,
      DEFAULT_HEARTBEAT_INTERVAL_SECONDS * 1000,
      sighting.errorBulletinsUntil ?? "",
      sighting.backPressured === undefined ? "" : sighting.backPressured ? "1" : "0",
      sample ? loadSampleText(sample) : "",
      ...pairs,
    );
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

  async revocationOf(tenant: string, serial: string): Promise<CachedRevocation> {
    const [revoked, loaded] = await this.usable().hmget(
      CacheKeys.revokedSerials(tenant),
      serial,
      LOADED_FIELD,
    );
    if (!loaded) return "unknown";
    return revoked ? "revoked" : "clear";
  }

  async rememberRevocations(tenant: string, serials: string[]): Promise<void> {
    const key = CacheKeys.revokedSerials(tenant);
    const entries = Object.fromEntries([
      [LOADED_FIELD, "1"],
      ...serials.map((serial) => [serial, "revoked"]),
    ]);
    await execute(this.usable().multi().del(key).hset(key, entries).expire(key, REVOCATION_LIST_TTL_SECONDS));
  }

  async rememberCertificate(tenant: string, agentId: string, serial: string): Promise<void> {
    await this.usable().hset(CacheKeys.agent(tenant, agentId), "certificate", serial);
  }

  async markRegistered(tenant: string, agentId: string, registration: CacheRegistration): Promise<boolean> {
    const { now, ownValues, pin, assignment, agentClass, manifest } = registration;
    const parameters = ownValuesText(ownValues);
    const pinned = pinText(pin);
    const assigned = assignmentText(assignment);
    // Only a registered agent's entry holds own values, the flow ids computed of them and a pin (the console
    // writes them to such an entry alone), so an entry being registered holds none to replace.
    const fields = {
      registered: "1",
      checkpointAt: String(now),
      ...(parameters === undefined ? {} : { [OWN_VALUES_FIELD]: parameters }),
      ...(pinned === undefined ? {} : { [PIN_FIELD]: pinned }),
      ...(assigned === undefined ? {} : { [ASSIGNMENT_FIELD]: assigned }),
    };
    return this.withTenantListed(tenant, (redis) =>
      redis.markRegistered(
        ...manifestKeys(tenant, agentId),
        CacheKeys.classes(tenant),
        ...manifestArguments(agentId, manifest),
        agentClass,
        ...Object.entries(fields).flat(),
      ),
    );
  }

  rememberClass(tenant: string, agentClass: string): Promise<boolean> {
    return this.withTenantListed(tenant, (redis) => redis.sadd(CacheKeys.classes(tenant), agentClass));
  }

  async forgetRegistration(tenant: string, agentId: string, agentClass: string): Promise<void> {
    const redis = this.usable();
    // Side by side, one round trip: both keys are the tenant's, in one cluster slot.
    await Promise.all([
      redis.hdel(CacheKeys.agent(tenant, agentId), "registered"),
      redis.srem(CacheKeys.classes(tenant), agentClass),
    ]);
  }

  /**
   * `addClass`'s call, which adds a class to the tenant's classes and answers 1 when they lacked it, with the
   * tenant added to the tenants whose classes the sweeper reads. Apart: the tenants' set is no tenant's key,
   * and may live on another shard than the tenant's. Sent together, one round trip: a process too busy to
   * read answers in time then misses no second one.
   */
  private async withTenantListed(
    tenant: string,
    addClass: (redis: (Redis | Cluster) & ScriptedRedis) => Promise<number>,
  ): Promise<boolean> {
    const redis = this.usable();
    const [, added] = await Promise.all([
      redis.sadd(CacheKeys.tenantsWithClasses(), tenant),
      addClass(redis),
    ]);
    return added === 1;
  }

  async rememberAgentManifest(tenant: string, agentId: string, manifest: KnownManifest): Promise<void> {
    // The agent's key may have expired since its heartbeat: it must not come back without a time to live.
    await this.usable().rememberManifest(
      ...manifestKeys(tenant, agentId),
      ...manifestArguments(agentId, manifest),
    );
  }

  async isManifestStored(tenant: string, manifestId: string): Promise<boolean> {
    return (await this.usable().sismember(CacheKeys.storedManifests(tenant), manifestId)) === 1;
  }

  async rememberManifestStored(tenant: string, manifestId: string): Promise<void> {
    await this.usable().sadd(CacheKeys.storedManifests(tenant), manifestId);
  }

  async rememberDescribe(tenant: string, agentId: string, pendingUntil: number | undefined): Promise<void> {
    const key = CacheKeys.agent(tenant, agentId);
    const redis = this.usable();
    if (pendingUntil === undefined) await redis.hdel(key, "describeUntil");
    else await redis.hset(key, "describeUntil", String(pendingUntil));
  }

  async markOperationsPending(tenant: string, agentId: string): Promise<void> {
    await this.usable().incr(CacheKeys.pendingOperations(tenant, agentId));
  }

  async clearOperationsPending(tenant: string, agentId: string, version: string): Promise<void> {
    await this.usable().clearPending(CacheKeys.pendingOperations(tenant, agentId), version);
  }

  async rememberRestart(tenant: string, agentId: string, deadline: number): Promise<void> {
    await this.usable().hset(CacheKeys.restarts(tenant), agentId, String(deadline));
  }

  async rememberClassFlow(
    tenant: string,
    className: string,
    policy: CachedClassFlow | undefined,
    heartbeatPeriodMs: number,
  ): Promise<void> {
    await rememberClassFlow(this.usable(), tenant, className, policy, heartbeatPeriodMs);
  }
}

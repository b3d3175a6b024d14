/**
 * A tenant's fleet of many agents, written as Beacon itself writes them, and fast. Each agent is a varied
 * C++ or Java agent of the kind `npm run agents` simulates (c2-examples.ts), and its heartbeat is read by
 * the agent API's own code (normalizeHeartbeat, sightingOf, newAgentRecord). The registry's items are the
 * DynamoDB adapter's own (agentProfileItem, agentSeenItem), written many to a BatchWriteItem, several at
 * once, instead of one PutItem an agent; the cache's hot state is recorded by the agent API's own sighting
 * script (RedisHotState), as each agent's latest heartbeat left it. The two binaries are in the tenant's
 * manifest catalog, as the agent API stores a binary it learns (DynamoManifestStore).
 */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Cluster, Redis } from "ioredis";
import {
  agentProfileItem,
  agentSeenItem,
  DynamoAgentClassRegistry,
} from "../../functions/adapters/dynamodb/agent-registry.js";
import { batchWriteAll, type WriteRequest } from "../../functions/adapters/dynamodb/batch-write.js";
import { DynamoManifestStore } from "../../functions/adapters/dynamodb/manifest-store.js";
import { RedisHotState } from "../../functions/adapters/redis/hot-state.js";
import {
  attributed,
  DEFAULT_AGENT_CLASS,
  newAgentRecord,
  sightingOf,
} from "../../functions/core/agent-requests/sighting.js";
import { fractionOf } from "../../functions/core/agents/checkpoint-interval.js";
import type { Labels } from "../../functions/core/agents/labels.js";
import type { HotSighting } from "../../functions/core/agents/ports.js";
import { normalizeHeartbeat } from "../../functions/core/c2/heartbeat.js";
import { summarizeManifest } from "../../functions/core/c2/manifest.js";
import type { AgentCredential } from "../../functions/core/identity/credentials.js";
import type { JsonObject } from "../../functions/core/json.js";
import { type AgentManifest, knownManifestOf } from "../../functions/core/manifests/agent-manifest.js";
import { binaryOf } from "../../functions/core/manifests/canonical.js";
import { cppAgentOf, javaAgentOf, type VariedAgent } from "../common/c2-examples.js";

/** The fleet's classes, each agent in one of them by its index. */
export const FLEET_CLASSES = ["gateways", "sensors", "cameras", "kiosks", "pumps"] as const;

/**
 * What the agents are doing when the fleet is written: most heartbeat now; some went quiet hours ago
 * (still in the cache, which keeps an agent a week); a few went for weeks (only the registry has them).
 */
export type Presence = "online" | "quiet" | "gone";

/** Agents per worker's turn: one BatchWriteItem of profiles, one of last-seen items. */
const AGENTS_PER_TURN = 25;
/**
 * Turns in flight at once: DynamoDB Local and Redis each take this many requests at a time. More write
 * little faster on a busy machine, and may open connections slower than the clients wait for one.
 */
export const FLEET_WRITE_CONCURRENCY = 16;
/** Progress is told every this share of the fleet. */
const PROGRESS_STEP = 0.1;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface FleetOptions {
  documents: DynamoDBDocumentClient;
  tableName: string;
  redis: Redis | Cluster;
  tenant: string;
  agents: number;
  /** The agent API's, as its configuration sets them (agentApiConfig). */
  intervals: Pick<HotSighting, "checkpointIntervalMs" | "catchUpRetryMs">;
  /** Turns of 25 agents in flight at once. */
  concurrency?: number;
  /** The labels operators set on the agent of this index, if any. */
  labelsOf?: (index: number) => Labels | undefined;
  /** The class of every agent, instead of spreading them over FLEET_CLASSES. */
  agentClass?: string;
  /**
   * Only the cache's part of each agent, its heartbeats' sightings, not the registry's items: for benches that
   * read nothing of the registry's agents while the cache answers, and would wait for DynamoDB Local's writes.
   */
  cacheOnly?: boolean;
  log?: (line: string) => void;
}

export interface FleetReport {
  agents: number;
  /** Items written to the table: profiles and periodic checkpoints' last-seen items. */
  items: number;
  /** Agents whose hot state the cache holds. */
  hotStates: number;
  seconds: number;
  byPresence: Record<Presence, number>;
  byClass: Record<string, number>;
}

/** What every agent's id begins with, its index after it. */
const AGENT_ID_PREFIX = "edge-";

/** The agent of index `index`, the same every run: its id, class, kind and what it was doing. */
export function fleetAgent(index: number) {
  return {
    agentId: `${AGENT_ID_PREFIX}${String(index).padStart(6, "0")}`,
    agentClass: FLEET_CLASSES[Math.floor(unit(index, 1) * FLEET_CLASSES.length)] as string,
    kind: unit(index, 2) < 0.3 ? ("java" as const) : ("cpp" as const),
    presence: presenceOf(unit(index, 3)),
    /** Where in its presence's span of time it was last seen, from 0 to 1. */
    age: unit(index, 4),
  };
}

/** The index of the fleet's agent of this id. */
export const fleetIndexOf = (agentId: string): number => Number(agentId.slice(AGENT_ID_PREFIX.length));

/** The fleet's agents' credential: they heartbeat with the tenant's fleet certificate. */
export const fleetCredentialOf = (tenant: string): AgentCredential => ({
  kind: "fleet",
  tenant,
  fleetName: "bench-fleet",
  serialNumber: "0B",
});

/** The agent as the simulated agents vary (c2-examples.ts): its heartbeats, of its kind and class. */
export const variedFleetAgent = (agentId: string, kind: "java" | "cpp", agentClass: string): VariedAgent =>
  kind === "java" ? javaAgentOf(agentId, agentClass) : cppAgentOf(agentId, agentClass);

const presenceOf = (fraction: number): Presence =>
  fraction < 0.75 ? "online" : fraction < 0.93 ? "quiet" : "gone";

/** The index hashed to a fraction in [0, 1), a different one per salt: a spread without randomness. */
const unit = (index: number, salt: number): number => fractionOf(`${salt}/${index}`);

/** Writes the fleet: every agent's profile and last-seen item, and the hot state of those the cache keeps. */
export async function writeFleet(options: FleetOptions): Promise<FleetReport> {
  const { documents, tableName, tenant } = options;
  const started = performance.now();
  const hotState = new RedisHotState(options.redis);
  const fleetCredential = fleetCredentialOf(tenant);
  const classes = new DynamoAgentClassRegistry(documents, tableName);
  await hotState.rememberRevocations(tenant, []);
  for (const agentClass of options.agentClass === undefined ? FLEET_CLASSES : [options.agentClass]) {
    await classes.ensure(tenant, agentClass, Date.now());
    await hotState.rememberClass(tenant, agentClass);
  }
  const manifestIds = new Map<string, string>();
  const manifests = new DynamoManifestStore(documents, tableName);
  const report: FleetReport = {
    agents: options.agents,
    items: 0,
    hotStates: 0,
    seconds: 0,
    byPresence: { online: 0, quiet: 0, gone: 0 },
    byClass: Object.fromEntries(FLEET_CLASSES.map((name) => [name, 0])),
  };

  /** One agent as its latest heartbeat left it: the registry's items and, unless gone, its sighting. */
  const agentAt = (index: number, now: number) => {
    const { agentId, kind, presence, age, ...spread } = fleetAgent(index);
    const agentClass = options.agentClass ?? spread.agentClass;
    const varied = variedFleetAgent(agentId, kind, agentClass);
    const body = varied.full();
    const networkInfo = (body.deviceInfo as JsonObject | undefined)?.networkInfo as JsonObject | undefined;
    if (networkInfo) networkInfo.hostname = `${agentId}.${agentClass}.example.net`;
    const heartbeat = attributed(normalizeHeartbeat(body), fleetCredential);
    const agentManifest = heartbeat.manifest as JsonObject;
    let manifestId = manifestIds.get(kind);
    if (manifestId === undefined) {
      // One binary per kind: the varied agents share the example's bundles.
      const binary = binaryOf(agentManifest);
      manifestId = binary.manifestId;
      manifestIds.set(kind, manifestId);
      stored.push(
        manifests.store(tenant, manifestId, binary.canonicalJson, summarizeManifest(agentManifest), now),
      );
    }
    const manifest: AgentManifest = {
      hash: varied.manifestHash,
      manifestId,
      supportedOperations: agentManifest.supportedOperations as unknown[],
    };
    const lastSeen =
      presence === "online"
        ? now - Math.floor(age * 50_000)
        : presence === "quiet"
          ? now - 2 * HOUR_MS - Math.floor(age * 20 * HOUR_MS)
          : now - 8 * DAY_MS - Math.floor(age * 30 * DAY_MS);
    const firstSeen = lastSeen - 30 * DAY_MS - Math.floor(age * 60 * DAY_MS);
    // The profile was last written when the agent last changed; checkpoints since wrote its last seen apart.
    const profileSeen = Math.max(firstSeen, lastSeen - Math.floor(age * 3 * DAY_MS));
    const record = {
      ...newAgentRecord(tenant, heartbeat, agentClass, firstSeen, manifest),
      lastSeen: profileSeen,
    };
    const labels = options.labelsOf?.(index);
    // On the profile as the registry's putLabels sets them.
    const profile = { ...agentProfileItem(record), ...(labels === undefined ? {} : { labels }) };
    const checkpointed = lastSeen - Math.floor(age * options.intervals.checkpointIntervalMs);
    return {
      agentClass,
      presence,
      items: [profile, agentSeenItem(tenant, agentId, checkpointed)],
      sighting:
        presence === "gone"
          ? undefined
          : sightingOf(tenant, fleetCredential, heartbeat, lastSeen, options.intervals),
      manifest,
      checkpointed,
    };
  };

  /** The cache's part of the agent's heartbeats: its sighting, its registration and the manifest it learned. */
  const recordHot = async (sighting: HotSighting, manifest: AgentManifest, checkpointed: number) => {
    let outcome = await hotState.recordSighting(sighting);
    // The cache's copy of the revocation list lives a few minutes; a long write outlives it.
    if (!outcome.recorded && outcome.revocation === "unknown") {
      await hotState.rememberRevocations(tenant, []);
      outcome = await hotState.recordSighting(sighting);
    }
    if (!outcome.recorded) throw new Error(`the cache refused ${sighting.agentId}: ${outcome.revocation}`);
    await hotState.markRegistered(tenant, sighting.agentId, {
      now: checkpointed,
      ownValues: new Map(),
      agentClass: sighting.agentClass ?? DEFAULT_AGENT_CLASS,
      manifest: knownManifestOf(manifest),
    });
  };

  /** The binaries' writes to the catalog, one a kind, begun by the first agent of each. */
  const stored: Promise<unknown>[] = [];
  let next = 0;
  let written = 0;
  const turns = async () => {
    while (next < options.agents) {
      const first = next;
      next = Math.min(options.agents, next + AGENTS_PER_TURN);
      const now = Date.now();
      const agents = Array.from({ length: next - first }, (_, offset) => agentAt(first + offset, now));
      const requests: WriteRequest[] = options.cacheOnly
        ? []
        : agents.flatMap(({ items }) => items.map((Item) => ({ PutRequest: { Item } })));
      await Promise.all([
        batchWriteAll(documents, tableName, requests, "the fleet's agents"),
        ...agents.map(
          ({ sighting, manifest, checkpointed }) => sighting && recordHot(sighting, manifest, checkpointed),
        ),
      ]);
      for (const { agentClass, presence, sighting } of agents) {
        report.byPresence[presence]++;
        report.byClass[agentClass] = (report.byClass[agentClass] ?? 0) + 1;
        if (sighting) report.hotStates++;
      }
      report.items += requests.length;
      const step = Math.ceil(options.agents * PROGRESS_STEP);
      written += agents.length;
      if (
        Math.floor(written / step) > Math.floor((written - agents.length) / step) &&
        written < options.agents
      ) {
        options.log?.(`${written} of ${options.agents} agents written`);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? FLEET_WRITE_CONCURRENCY }, turns));
  await Promise.all(stored);
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

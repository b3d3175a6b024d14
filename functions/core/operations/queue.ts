import type { AgentRecord, ClassCatalog } from "../agents/ports.js";
import { ackTimeoutMsOf } from "../agents/status.js";
import type { OperationArgs } from "../c2/model.js";
import { BeaconError } from "../errors.js";
import type { EventSink } from "../events/ports.js";
import type { FleetHotState, HotAgentState } from "../fleet/ports.js";
import { guardedCache } from "../guarded-cache.js";
import { dropUndefined } from "../json.js";
import { manifestIdOf, operationsOfAgent } from "../manifests/agent-manifest.js";
import type { ManifestCatalog, ManifestRecord } from "../manifests/ports.js";
import type { Clock, IdGenerator } from "../ports.js";
import { type AgentBuild, refusalOf } from "./gating.js";
import { newOperationId } from "./ids.js";
import type { OperationLifecycle } from "./lifecycle.js";
import type { OperationRecord } from "./model.js";
import type { ExistingOperations } from "./ports.js";

export interface OperationQueueDependencies {
  lifecycle: OperationLifecycle;
  catalog: Pick<ClassCatalog, "get">;
  manifests: ManifestCatalog;
  hotState: FleetHotState;
  events: EventSink;
  clock: Clock;
  ids: IdGenerator;
}

/** One operation to create for one agent. */
export interface OperationDraft {
  agent: AgentRecord;
  operation: string;
  operand?: string;
  args?: OperationArgs;
  dependsOn?: string[];
  /** Set by the draft's maker when another draft of the same request must depend on it. */
  operationId?: string;
  /** Held until then for the agent's class's maintenance window (OperationRecord.notBefore). */
  notBefore?: number;
}

/** A draft the agent cannot take, and why. */
export interface Refusal {
  draft: OperationDraft;
  reason: string;
}

/**
 * What creating operations for agents shares, whoever asks (`POST /operations`, a class's resource set):
 * what the cache knows of the agents, whether each can take its operation, and queueing them.
 */
export function makeOperationQueue(deps: OperationQueueDependencies) {
  const { lifecycle, catalog, manifests, hotState, events, clock, ids } = deps;

  /** Each class's own acknowledgement timeout, read once per class of the agents. */
  async function ackTimeoutsOf(tenant: string, agents: AgentRecord[]): Promise<Map<string, number>> {
    const timeouts = new Map<string, number>();
    for (const agentClass of new Set(agents.map((agent) => agent.agentClass))) {
      const timeout = ackTimeoutMsOf(await catalog.get(tenant, agentClass));
      if (timeout !== undefined) timeouts.set(agentClass, timeout);
    }
    return timeouts;
  }

  return {
    /** What the cache holds of the agents (manifest and resource hashes); nothing when it fails. */
    async hotStateOf(tenant: string, agents: AgentRecord[]): Promise<Map<string, HotAgentState>> {
      const cache = guardedCache();
      const hot = await cache.attempt(() =>
        hotState.agents(
          tenant,
          agents.map((agent) => agent.agentId),
        ),
      );
      return hot ?? new Map();
    },

    /**
     * The drafts their agents cannot take, each with the reason, judged by the manifest of the hash the agent
     * reports now (the cache's, else the registry's): its supported operations, and its binary's agent type
     * and version, read once per binary.
     */
    async refusals(
      tenant: string,
      drafts: OperationDraft[],
      hot: Map<string, HotAgentState>,
    ): Promise<Refusal[]> {
      const binaries = new Map<string, Promise<ManifestRecord | undefined>>();
      const binaryOf = (manifestId: string) => {
        let found = binaries.get(manifestId);
        if (!found) {
          found = manifests.get(tenant, manifestId);
          binaries.set(manifestId, found);
        }
        return found;
      };
      const refused: Refusal[] = [];
      for (const draft of drafts) {
        const { agent } = draft;
        const reported = hot.get(agent.agentId)?.manifestHash ?? agent.manifestHash;
        const supportedOperations = operationsOfAgent(agent, reported);
        const manifestId = manifestIdOf(agent, reported);
        const binary = manifestId === undefined ? undefined : await binaryOf(manifestId);
        const build: AgentBuild | undefined = supportedOperations && {
          agentType: binary?.agentType,
          version: binary?.version,
          supportedOperations,
        };
        const reason = refusalOf(build, draft);
        if (reason !== undefined) refused.push({ draft, reason });
      }
      return refused;
    },

    /**
     * Queues the drafts, each with its class's acknowledgement timeout, and returns the records and whether
     * their events missed the stream. The agents' pending markers go first: without them their heartbeats
     * would not look at their queues, so without the cache nothing is created. They are set again once the
     * operations are written: a heartbeat that read the first marker and the queue before the write found
     * nothing and cleared the marker. A selection's step names each operation (`idOf`) and keeps one made
     * already by an earlier run of the step as done (`existing: keep`).
     */
    async enqueue(
      tenant: string,
      drafts: OperationDraft[],
      createdBy: string,
      selection: { idOf?: (agentId: string) => string; existing?: ExistingOperations } = {},
    ): Promise<{ records: OperationRecord[]; streamError?: unknown }> {
      const agents = drafts.map((draft) => draft.agent);
      const ackTimeouts = await ackTimeoutsOf(tenant, agents);
      const now = clock.now();
      const records: OperationRecord[] = drafts.map((draft) =>
        dropUndefined({
          tenant,
          agentId: draft.agent.agentId,
          operationId:
            draft.operationId ??
            selection.idOf?.(draft.agent.agentId) ??
            newOperationId(now, ids, draft.agent.agentId),
          operation: draft.operation,
          operand: draft.operand,
          args: draft.args,
          dependsOn: draft.dependsOn,
          state: "queued" as const,
          createdAt: now,
          createdBy,
          agentClass: draft.agent.agentClass,
          ackTimeoutMs: ackTimeouts.get(draft.agent.agentClass),
          notBefore: draft.notBefore,
        }),
      );
      // A held operation's agent learns of it when the sweeper releases it.
      const agentIds = [
        ...new Set(
          drafts.filter((draft) => draft.notBefore === undefined).map((draft) => draft.agent.agentId),
        ),
      ];
      const cache = guardedCache();
      if (agentIds.length > 0) await cache.attempt(() => hotState.markOperationsPending(tenant, agentIds));
      if (cache.error !== undefined)
        throw new BeaconError(
          "cache_unavailable",
          "Beacon's cache is unreachable, so agents would not learn of the operation; try again",
        );
      const created = await lifecycle.create(records, selection.existing);
      // Failing now, it leaves the first markers, which only a heartbeat in between has cleared.
      if (agentIds.length > 0) await cache.attempt(() => hotState.markOperationsPending(tenant, agentIds));
      try {
        await events.publish(created.events);
        return { records };
      } catch (error) {
        return { records, streamError: error };
      }
    },

    /** An id for a draft that others of the same request depend on. */
    newId: (agentId: string): string => newOperationId(clock.now(), ids, agentId),
  };
}

export type OperationQueue = ReturnType<typeof makeOperationQueue>;

import type { AgentRegistry, ClassCatalog } from "../agents/ports.js";
import { DEFAULT_HEARTBEAT_INTERVAL_SECONDS } from "../agents/status.js";
import type { EventSink } from "../events/ports.js";
import type { FleetHotState } from "../fleet/ports.js";
import { guardedCache } from "../guarded-cache.js";
import type { Clock } from "../ports.js";
import type { OperationLifecycle } from "./lifecycle.js";
import { isFinal, type OperationRecord, queuedSince } from "./model.js";
import type { OperationStore } from "./ports.js";

export interface SweepSettings {
  /** A queued operation times out after this many heartbeat intervals of its agent's class. */
  queuedTimeoutHeartbeats: number;
  /** Most due operations one run handles; the rest wait for the next run. */
  maxOperationsPerRun: number;
}

export interface SweepDependencies {
  operations: OperationStore;
  lifecycle: OperationLifecycle;
  agents: Pick<AgentRegistry, "get">;
  classes: Pick<ClassCatalog, "get">;
  /**
   * Where a held operation's release sets its agent's pending marker, so that its next heartbeat looks, and
   * a timeout puts its agent in the attention index of failed operations.
   */
  hotState: Pick<FleetHotState, "markOperationsPending" | "recordOperationOutcome">;
  events: EventSink;
  clock: Clock;
  settings: SweepSettings;
}

export interface SweepOutcome {
  /** Timed out, by the state they left. */
  timedOut: { queued: number; delivered: number; awaiting_effect: number };
  /** Dependents of timed-out operations, cancelled with them. */
  cancelled: number;
  /** Queued operations whose class gives them longer: looked at again at their deadline. */
  postponed: number;
  /** Operations held for their class's maintenance window, released to their agents now. */
  released: number;
  /** Due operations an acknowledgement, a heartbeat or another sweeper closed or moved first. */
  skipped: number;
  /** The run stopped at its bound with due operations left for the next run. */
  more: boolean;
  /** The transitions stand; their events did not all reach the stream. */
  streamError?: unknown;
}

/**
 * The sweeper's use case: closes the operations agents never took, never acknowledged or never showed the
 * effect of. A delivered operation, or one awaiting its effect, times out at its `timeoutAt`; a queued one
 * after `queuedTimeoutHeartbeats` heartbeat intervals of its agent's class, counted from its release when it
 * was held for its class's maintenance window (which this look makes, at `notBefore`). Every change is a conditional transition of the lifecycle, so a late
 * acknowledgement, a heartbeat or an overlapping run racing it leaves exactly one winner.
 */
export function makeSweepTimeouts(deps: SweepDependencies) {
  const { operations, lifecycle, agents, classes, events, clock, settings } = deps;

  /** Heartbeat intervals of agents' classes, read at most once per agent and class in a run. */
  function intervalReader() {
    const byClass = new Map<string, Promise<number>>();
    const byAgent = new Map<string, Promise<number>>();
    const ofClass = (tenant: string, agentClass: string) => {
      const key = `${tenant}\n${agentClass}`;
      let found = byClass.get(key);
      if (!found) {
        found = classes
          .get(tenant, agentClass)
          .then((record) => record?.heartbeatIntervalSeconds ?? DEFAULT_HEARTBEAT_INTERVAL_SECONDS);
        byClass.set(key, found);
      }
      return found;
    };
    return (tenant: string, agentId: string): Promise<number> => {
      const key = `${tenant}\n${agentId}`;
      let found = byAgent.get(key);
      if (!found) {
        found = agents
          .get(tenant, agentId)
          .then((agent) => (agent ? ofClass(tenant, agent.agentClass) : DEFAULT_HEARTBEAT_INTERVAL_SECONDS));
        byAgent.set(key, found);
      }
      return found;
    };
  }

  return async function sweepTimeouts(): Promise<SweepOutcome> {
    const now = clock.now();
    const intervalOf = intervalReader();
    const outcome: SweepOutcome = {
      timedOut: { queued: 0, delivered: 0, awaiting_effect: 0 },
      cancelled: 0,
      postponed: 0,
      released: 0,
      skipped: 0,
      more: false,
    };

    async function timeOut(record: OperationRecord, reason: string) {
      const result = await lifecycle.timeOut(record, reason);
      if (result.timedOut) {
        outcome.timedOut[record.state as keyof SweepOutcome["timedOut"]]++;
        // Without the cache the agent is not counted as needing attention; the timeout stands all the same.
        await guardedCache().attempt(() =>
          deps.hotState.recordOperationOutcome(record.tenant, record.agentId, record.agentClass, true, now),
        );
      } else outcome.skipped++;
      outcome.cancelled += result.events.filter((event) => event.state === "cancelled").length;
      if (result.events.length === 0) return;
      try {
        await events.publish(result.events);
      } catch (error) {
        outcome.streamError = error;
      }
    }

    /** Sets the agent's pending marker; false when the cache failed, and the next run tries again. */
    async function release(record: OperationRecord): Promise<boolean> {
      const cache = guardedCache();
      await cache.attempt(() => deps.hotState.markOperationsPending(record.tenant, [record.agentId]));
      return cache.error === undefined;
    }

    let handled = 0;
    for await (const candidate of operations.due(now)) {
      if (handled >= settings.maxOperationsPerRun) {
        outcome.more = true;
        break;
      }
      handled++;
      // The index lags the table: decide on the operation as it is now.
      const record = await operations.get(candidate.tenant, candidate.agentId, candidate.operationId);
      if (!record || isFinal(record.state) || record.dueAt === undefined || record.dueAt > now) {
        outcome.skipped++;
      } else if (record.state === "delivered") {
        const waited = Math.round(((record.timeoutAt ?? now) - (record.deliveredAt ?? now)) / 1000);
        await timeOut(record, `Not acknowledged within ${waited} s of delivery`);
      } else if (record.state === "awaiting_effect") {
        await timeOut(record, `Acknowledged ${record.ackState}, but no heartbeat showed the effect in time`);
      } else {
        const interval = await intervalOf(record.tenant, record.agentId);
        const deadline = queuedSince(record) + settings.queuedTimeoutHeartbeats * interval * 1000;
        // A held one is due first at its release: its agent learns of it by the marker, before its deadline is set.
        const releasing = record.notBefore !== undefined && record.dueAt === record.notBefore;
        if (releasing && !(await release(record))) {
          outcome.skipped++;
        } else if (deadline <= now) {
          await timeOut(
            record,
            `Not delivered within ${settings.queuedTimeoutHeartbeats} heartbeat intervals of its agent's class (${interval} s each)`,
          );
        } else if (await operations.transition(record, "queued", { state: "queued", dueAt: deadline })) {
          // Not a move of the state machine: only the due time changes, and only while it is still queued.
          if (releasing) outcome.released++;
          else outcome.postponed++;
        } else {
          outcome.skipped++;
        }
      }
    }
    return outcome;
  };
}

export type SweepTimeouts = ReturnType<typeof makeSweepTimeouts>;

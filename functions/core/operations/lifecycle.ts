import { DEFAULT_HEARTBEAT_INTERVAL_SECONDS } from "../agents/status.js";
import { dropUndefined } from "../c2/json.js";
import type { SupportedOperations } from "../c2/manifest.js";
import type { Acknowledgement, C2Operation } from "../c2/model.js";
import type { OperationEvent } from "../events/model.js";
import { updateConfigurationArgs } from "../flows/location.js";
import type { Clock, IdGenerator } from "../ports.js";
import { planDelivery } from "./delivery.js";
import {
  canTransition,
  isNeverAcknowledged,
  type OperationChange,
  type OperationRecord,
  type OperationState,
  stateAfterAck,
} from "./model.js";
import type { OperationStore } from "./ports.js";

/**
 * When the sweeper first looks at a queued operation: one default heartbeat interval after creation. Most
 * are delivered by then and never cost the sweeper anything; the rest get their class's deadline then.
 */
export const QUEUED_FIRST_LOOK_MS = DEFAULT_HEARTBEAT_INTERVAL_SECONDS * 1000;

export interface LifecycleSettings {
  /** How long a delivered operation may go unacknowledged before it counts as timed out. */
  ackTimeoutMs: number;
}

export interface LifecycleDependencies {
  operations: OperationStore;
  clock: Clock;
  ids: IdGenerator;
  settings: LifecycleSettings;
}

/** What a step of the lifecycle changed: the events to put on the stream, in order. */
export interface LifecycleResult {
  events: OperationEvent[];
}

export interface Delivery extends LifecycleResult {
  operations: C2Operation[];
  /** Something is still queued for the agent: its pending marker stays. */
  remaining: boolean;
}

/**
 * The operation state machine over its store, shared by the agent API (delivery, acknowledgements),
 * the console (creation, cancellation) and whatever else queues operations for agents. Each step is a
 * conditional update, so a duplicate or late acknowledgement, or two requests racing, change nothing twice.
 */
export function makeOperationLifecycle(deps: LifecycleDependencies) {
  const { operations, ids, settings } = deps;

  function eventOf(
    record: OperationRecord,
    from: OperationState | undefined,
    change: OperationChange,
    at: number,
  ): OperationEvent {
    return dropUndefined({
      type: "operation" as const,
      version: 1 as const,
      eventId: ids.newId(),
      tenant: record.tenant,
      agentId: record.agentId,
      at,
      operationId: record.operationId,
      operation: record.operation,
      operand: record.operand,
      from,
      state: change.state,
      ackState: change.ackState,
      details: change.details,
      failureCause: change.failureCause,
      reason: change.reason,
    });
  }

  /** One transition of the table, or none when the operation left `from` meanwhile. */
  async function move(
    record: OperationRecord,
    from: OperationState,
    change: OperationChange,
    at: number,
  ): Promise<OperationEvent | undefined> {
    if (!canTransition(from, change.state)) throw new Error(`No transition from ${from} to ${change.state}`);
    return (await operations.transition(record, from, change))
      ? eventOf(record, from, change, at)
      : undefined;
  }

  /** Cancels the queued operations that wait, directly or through others, on one that will never be done. */
  async function cancelDependents(tenant: string, agentId: string, operationId: string, now: number) {
    const events: OperationEvent[] = [];
    const open = await operations.open(tenant, agentId);
    const doomed = new Set([operationId]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const record of open) {
        if (record.state !== "queued" || doomed.has(record.operationId)) continue;
        if (!(record.dependsOn ?? []).some((id) => doomed.has(id))) continue;
        doomed.add(record.operationId);
        grew = true;
        const change = {
          state: "cancelled" as const,
          finishedAt: now,
          reason: `It depends on ${operationId}, which will not be done`,
        };
        const event = await move(record, "queued", change, now);
        if (event) events.push(event);
      }
    }
    return events;
  }

  /** Writes new operations, queued, with the sweeper's first look at them due. */
  async function create(records: OperationRecord[]): Promise<OperationRecord[]> {
    const queued = records.map((record) => ({ ...record, dueAt: record.createdAt + QUEUED_FIRST_LOOK_MS }));
    await operations.create(queued);
    return queued;
  }

  const createdEvent = (record: OperationRecord) =>
    eventOf(record, undefined, { state: "queued" }, record.createdAt);

  return {
    async create(records: OperationRecord[]): Promise<LifecycleResult> {
      await create(records);
      return { events: records.map(createdEvent) };
    },

    /**
     * Moves what the agent can take now from queued to delivered, for one heartbeat reply. `ensure` is an
     * operation the agent should have open: it is created first, unless the open operations (read in the
     * same one query) hold one of the same operation and operand already, so it is never queued twice.
     */
    async deliver(
      tenant: string,
      agentId: string,
      supportedOperations: SupportedOperations,
      limit: number,
      ensure?: OperationRecord,
    ): Promise<Delivery> {
      const now = deps.clock.now();
      const open = await operations.open(tenant, agentId);
      const events: OperationEvent[] = [];
      if (ensure && !open.some((record) => isSameKind(record, ensure))) {
        open.push(...(await create([ensure])));
        events.push(createdEvent(ensure));
      }
      const plan = planDelivery(open, supportedOperations, limit);
      for (const record of plan.unsupported) {
        // The agent's manifest changed since creation; dependents go with it.
        events.push(...(await cancelDependents(tenant, agentId, record.operationId, now)));
        const event = await move(
          record,
          "queued",
          {
            state: "cancelled",
            finishedAt: now,
            reason: "The agent's manifest no longer lists the operation",
          },
          now,
        );
        if (event) events.push(event);
      }
      const delivered: C2Operation[] = [];
      for (const record of plan.deliver) {
        // An operation sent to a class with its own acknowledgement timeout carries it.
        const timeoutAt = now + (record.ackTimeoutMs ?? settings.ackTimeoutMs);
        // The sweeper's due time rides on the same conditional update: no extra write on the heartbeat.
        const event = await move(
          record,
          "queued",
          { state: "delivered", deliveredAt: now, timeoutAt, dueAt: timeoutAt },
          now,
        );
        // Another heartbeat of the same agent delivered it first.
        if (!event) continue;
        events.push(event);
        delivered.push(
          dropUndefined({
            identifier: record.operationId,
            operation: record.operation,
            operand: record.operand,
            args: record.args,
          }),
        );
        if (isNeverAcknowledged(record.operation)) {
          const done = await move(record, "delivered", { state: "done", finishedAt: now }, now);
          if (done) events.push(done);
        }
      }
      return { operations: delivered, events, remaining: plan.remaining };
    },

    /** Closes the delivered operation an acknowledgement names; unknown, duplicate and late ones change nothing. */
    async acknowledge(tenant: string, agentId: string, ack: Acknowledgement): Promise<LifecycleResult> {
      const record = await operations.get(tenant, agentId, ack.operationId);
      if (record?.state !== "delivered") return { events: [] };
      const now = deps.clock.now();
      const state = stateAfterAck(ack.state);
      const events =
        state === "failed" ? await cancelDependents(tenant, agentId, record.operationId, now) : [];
      const change: OperationChange = dropUndefined({
        state,
        finishedAt: now,
        ackState: ack.state,
        details: ack.details,
        failureCause: state === "failed" ? ack.failureCause : undefined,
      });
      const event = await move(record, "delivered", change, now);
      // Dependents cancelled for a failure stay cancelled even when a racing move wins: their events go out too.
      return { events: event ? [...events, event] : events };
    },

    /**
     * Closes an open operation as timed out, with the reason, and cancels what waits on it first, as for a
     * failed one. Dependents cancelled before a racing acknowledgement wins stay cancelled: never delivered
     * after a dependency that was not done. `timedOut` is false when the acknowledgement (or another sweeper) won.
     */
    async timeOut(record: OperationRecord, reason: string): Promise<LifecycleResult & { timedOut: boolean }> {
      if (record.state !== "queued" && record.state !== "delivered") return { events: [], timedOut: false };
      const now = deps.clock.now();
      const dependents = await cancelDependents(record.tenant, record.agentId, record.operationId, now);
      const event = await move(record, record.state, { state: "timed_out", finishedAt: now, reason }, now);
      return { events: event ? [...dependents, event] : dependents, timedOut: event !== undefined };
    },

    /**
     * Cancels a queued operation and what waits on it. `cancelled` is false when it was no longer queued;
     * dependents cancelled before a racing delivery won stay cancelled, and their events are returned.
     */
    async cancel(record: OperationRecord, reason: string): Promise<LifecycleResult & { cancelled: boolean }> {
      if (record.state !== "queued") return { events: [], cancelled: false };
      const now = deps.clock.now();
      const dependents = await cancelDependents(record.tenant, record.agentId, record.operationId, now);
      const event = await move(record, "queued", { state: "cancelled", finishedAt: now, reason }, now);
      return { events: event ? [...dependents, event] : dependents, cancelled: event !== undefined };
    },
  };
}

export type OperationLifecycle = ReturnType<typeof makeOperationLifecycle>;

const isSameKind = (a: OperationRecord, b: OperationRecord): boolean =>
  a.operation === b.operation && (a.operand ?? "") === (b.operand ?? "");

/** Operation ids sort by creation time, so lists run newest first and an agent's queue in order. */
export const newOperationId = (now: number, ids: IdGenerator): string =>
  `op-${String(now).padStart(13, "0")}-${ids.newId()}`;

/** A queued UPDATE CONFIGURATION that Beacon itself creates (catch-up, a rollout) to send an agent a flow. */
export function newUpdateConfiguration(request: {
  tenant: string;
  agentId: string;
  flowId: string;
  agentApiUrl: string;
  createdBy: string;
  now: number;
  ids: IdGenerator;
  rolloutId?: string;
  ackTimeoutMs?: number;
}): OperationRecord {
  return dropUndefined({
    tenant: request.tenant,
    agentId: request.agentId,
    operationId: newOperationId(request.now, request.ids),
    operation: "UPDATE",
    operand: "CONFIGURATION",
    args: updateConfigurationArgs(request.agentApiUrl, request.flowId),
    state: "queued" as const,
    createdAt: request.now,
    createdBy: request.createdBy,
    rolloutId: request.rolloutId,
    ackTimeoutMs: request.ackTimeoutMs,
  });
}

import { DEFAULT_HEARTBEAT_INTERVAL_SECONDS } from "../agents/status.js";
import { isAppliedState } from "../c2/ack.js";
import type { SupportedOperations } from "../c2/manifest.js";
import type { Acknowledgement, C2Operation } from "../c2/model.js";
import type { OperationEvent, OperationState } from "../events/model.js";
import { updateConfigurationArgs } from "../flows/location.js";
import { dropUndefined } from "../json.js";
import type { Clock, IdGenerator } from "../ports.js";
import { isFlowUpdate, planDelivery } from "./delivery.js";
import { effectSeen, type SeenEffects, stateAfterAck } from "./effects.js";
import { agentOfOperation, isValidOperationId, newOperationId } from "./ids.js";
import {
  canTransition,
  isFinal,
  isNeverAcknowledged,
  type OperationChange,
  type OperationRecord,
} from "./model.js";
import type { ExistingOperations, OperationStore } from "./ports.js";
import { restartDeadlineOf } from "./restarts.js";
import { isTransferDebug, NO_BUNDLE_REASON } from "./transfer-debug.js";

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
  /** Something is still queued for the agent, or awaits its effect: its pending marker stays. */
  remaining: boolean;
  /** The reply restarts the agent (restarts.ts): when the restart should be over, its acknowledgement due. */
  restartDeadline?: number;
}

export interface DeliveryOptions {
  /**
   * An operation the agent should have open: created first, unless the open operations (read in the same
   * one query) hold one of the same operation and operand already, so it is never queued twice.
   */
  ensure?: OperationRecord;
  /** What the heartbeat shows of the agent: open operations whose effect it shows are done. */
  seen?: SeenEffects;
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
      agentClass: record.agentClass,
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
      confirmedBy: change.confirmedBy,
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
    const event = eventOf(record, from, change, at);
    return (await operations.transition(record, from, change, event)) ? event : undefined;
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
  const createdEvent = (record: OperationRecord) =>
    eventOf(record, undefined, { state: "queued" }, record.createdAt);

  /** Writes the operations, queued, with their events; a held one is due at its release. */
  async function create(records: OperationRecord[], existing?: ExistingOperations) {
    const queued = records.map((record) => ({
      ...record,
      dueAt: record.notBefore ?? record.createdAt + QUEUED_FIRST_LOOK_MS,
    }));
    const events = queued.map(createdEvent);
    const written = new Set(await operations.create(queued, events, { existing }));
    return { queued, events: events.filter((event) => written.has(event.operationId)) };
  }

  return {
    /** Queues the operations; with `existing: keep`, one whose id exists is left as it is, without its event. */
    async create(records: OperationRecord[], existing?: ExistingOperations): Promise<LifecycleResult> {
      return { events: (await create(records, existing)).events };
    },

    /**
     * The operation an id names, read consistently: in the partition of the agent the id names or, for an
     * id Beacon did not make, of `agentId` when the caller knows one.
     */
    async find(tenant: string, operationId: string, agentId?: string): Promise<OperationRecord | undefined> {
      const owner = agentOfOperation(operationId) ?? agentId;
      return owner !== undefined && isValidOperationId(operationId)
        ? operations.get(tenant, owner, operationId)
        : undefined;
    },

    /**
     * For one heartbeat reply, in one read of the agent's open operations: closes as done those whose
     * effect the heartbeat shows, then moves what the agent can take now from queued to delivered.
     */
    async deliver(
      tenant: string,
      agentId: string,
      supportedOperations: SupportedOperations,
      limit: number,
      options: DeliveryOptions = {},
    ): Promise<Delivery> {
      const { ensure, seen } = options;
      const now = deps.clock.now();
      const read = await operations.open(tenant, agentId);
      const events: OperationEvent[] = [];
      const confirmed = seen ? read.filter((record) => effectSeen(record, seen)) : [];
      for (const record of confirmed) {
        const change = { state: "done" as const, finishedAt: now, confirmedBy: "heartbeat" as const };
        const event = await move(record, record.state, change, now);
        if (event) events.push(event);
      }
      // Whether or not its move won, a confirmed operation is closed: what depends on it may go out now.
      const open = read.filter((record) => !confirmed.includes(record));
      if (ensure && !open.some((record) => isSameKind(record, ensure))) {
        const created = await create([ensure]);
        open.push(...created.queued);
        events.push(...created.events);
      }
      const plan = planDelivery(open, supportedOperations, limit, now);
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
      // A newer flow replaces the superseded ones; should one of them have gone out meanwhile (a heartbeat
      // racing this one delivered it), the newer waits for it to close instead, as planned for one in flight.
      const newest = plan.deliver.find(isFlowUpdate);
      let supersededAll = true;
      for (const record of plan.superseded) {
        events.push(...(await cancelDependents(tenant, agentId, record.operationId, now)));
        const reason = `A newer UPDATE CONFIGURATION replaced it${newest ? `: ${newest.operationId}` : ""}`;
        const event = await move(record, "queued", { state: "cancelled", finishedAt: now, reason }, now);
        if (event) events.push(event);
        else supersededAll = false;
      }
      const deliverable = supersededAll ? plan.deliver : plan.deliver.filter((record) => record !== newest);
      const delivered: C2Operation[] = [];
      const deadlines: { operation: string; operand?: string; timeoutAt: number }[] = [];
      for (const record of deliverable) {
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
        deadlines.push({ operation: record.operation, operand: record.operand, timeoutAt });
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
      const awaiting = open.some((record) => record.state === "awaiting_effect");
      return {
        operations: delivered,
        events,
        remaining: plan.remaining || awaiting || !supersededAll,
        restartDeadline: restartDeadlineOf(deadlines),
      };
    },

    /**
     * Closes the delivered operation an acknowledgement names (found with `find`), or moves it on to await
     * its effect; duplicate and late ones change nothing. `kept` records the answer it brought (results.ts).
     */
    async acknowledge(
      record: OperationRecord,
      ack: Acknowledgement,
      kept: Pick<OperationChange, "result" | "resultLost" | "bundle"> = {},
    ): Promise<LifecycleResult> {
      if (record.state !== "delivered") return { events: [] };
      const now = deps.clock.now();
      // TRANSFER DEBUG is done when its bundle is stored too: an agent's word that it uploaded is not the bundle.
      const bundleMissing = isTransferDebug(record) && isAppliedState(ack.state) && !kept.bundle;
      const state = bundleMissing ? "failed" : stateAfterAck(record, ack);
      const events =
        state === "failed"
          ? await cancelDependents(record.tenant, record.agentId, record.operationId, now)
          : [];
      // The effect gets the time an acknowledgement gets, from now; the sweeper closes it after that.
      const timeoutAt = now + (record.ackTimeoutMs ?? settings.ackTimeoutMs);
      const change: OperationChange = dropUndefined({
        state,
        ...(state === "awaiting_effect" ? { timeoutAt, dueAt: timeoutAt } : { finishedAt: now }),
        ackState: ack.state,
        confirmedBy: state === "done" ? (kept.bundle ? ("bundle" as const) : ("ack" as const)) : undefined,
        details: ack.details,
        failureCause: state === "failed" ? ack.failureCause : undefined,
        reason: bundleMissing ? NO_BUNDLE_REASON : undefined,
        ...kept,
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
      if (isFinal(record.state)) return { events: [], timedOut: false };
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

/** A queued UPDATE CONFIGURATION that Beacon itself creates (catch-up, a rollout) to send an agent a flow. */
export function newUpdateConfiguration(request: {
  tenant: string;
  agentId: string;
  /** The version's hash. */
  flowHash: string;
  /** When the version declares parameters, the flow id of its rendering with the agent's values. */
  renderedFlowId?: string;
  /** The rollout of staged values whose frozen values the rendering takes for the class's. */
  valuesRollout?: string;
  agentApiUrl: string;
  createdBy: string;
  agentClass?: string;
  now: number;
  ids: IdGenerator;
  rolloutId?: string;
  ackTimeoutMs?: number;
}): OperationRecord {
  return dropUndefined({
    tenant: request.tenant,
    agentId: request.agentId,
    operationId: newOperationId(request.now, request.ids, request.agentId),
    operation: "UPDATE",
    operand: "CONFIGURATION",
    args: updateConfigurationArgs(request.agentApiUrl, request.flowHash, request),
    state: "queued" as const,
    createdAt: request.now,
    createdBy: request.createdBy,
    agentClass: request.agentClass,
    rolloutId: request.rolloutId,
    ackTimeoutMs: request.ackTimeoutMs,
  });
}

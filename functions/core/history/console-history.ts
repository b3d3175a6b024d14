import { BeaconError } from "../errors.js";
import type { FleetRegistry } from "../fleet/ports.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import { type AgentLogEvent, isAgentLogKey } from "./agent-log.js";
import { HistoryCounters, MINUTE_MS, WHOLE_FLEET, zeroCounts } from "./model.js";
import type { AgentEventLog, FleetHistoryStore } from "./ports.js";
import { emptySketch, estimateAgents, mergeSketch } from "./sketch.js";

/** The longest range one request reads: 1,440 minute buckets. */
export const MAX_HISTORY_RANGE_MS = 24 * 60 * MINUTE_MS;
export const DEFAULT_HISTORY_RANGE_MS = 60 * MINUTE_MS;

export interface HistoryRequest {
  agentClass?: string;
  from?: number;
  to?: number;
  stepSeconds?: number;
}

export function makeHistoryApi(deps: {
  history: FleetHistoryStore;
  agentEvents: AgentEventLog;
  registry: FleetRegistry;
  clock: Clock;
}) {
  const { history, agentEvents, registry, clock } = deps;

  return {
    /** Points of `step` from `from` to `to`, whole minutes: each counts its minutes, and the distinct agents seen in them. */
    async fleet(principal: Principal, request: HistoryRequest): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const stepSeconds = request.stepSeconds ?? 60;
      if (stepSeconds % 60 !== 0) {
        throw new BeaconError(
          "invalid_request",
          "step must be a whole number of minutes, in seconds (60, 300, 3600)",
        );
      }
      const to = request.to ?? clock.now();
      const from = request.from ?? to - DEFAULT_HISTORY_RANGE_MS;
      // Before 1970 a minute's number is negative, which the history's keys do not hold.
      if (!Number.isFinite(from) || !Number.isFinite(to) || from < 0) {
        throw new BeaconError("invalid_request", "from and to must be times Beacon can read, since 1970");
      }
      const fromMinute = Math.floor(from / MINUTE_MS);
      const toMinute = Math.ceil(to / MINUTE_MS);
      if (toMinute <= fromMinute || from >= to)
        throw new BeaconError("invalid_request", "from must be before to");
      if ((toMinute - fromMinute) * MINUTE_MS > MAX_HISTORY_RANGE_MS) {
        throw new BeaconError("invalid_request", "from and to may be at most 24 hours apart");
      }
      const agentClass = request.agentClass ?? WHOLE_FLEET;
      const buckets = new Map(
        (await history.read(principal.tenant, agentClass, fromMinute, toMinute)).map((bucket) => [
          bucket.minute,
          bucket,
        ]),
      );
      const stepMinutes = stepSeconds / 60;
      const points = [];
      for (let start = fromMinute; start < toMinute; start += stepMinutes) {
        const end = Math.min(start + stepMinutes, toMinute);
        const counts = zeroCounts();
        const agents = emptySketch();
        for (let minute = start; minute < end; minute++) {
          const bucket = buckets.get(minute);
          if (!bucket) continue;
          // A bucket written before a counter existed lacks it.
          for (const counter of HistoryCounters) counts[counter] += bucket.counts[counter] ?? 0;
          mergeSketch(agents, bucket.agentsSeen);
        }
        points.push({
          at: toIso(start * MINUTE_MS),
          agentsSeen: estimateAgents(agents),
          ...Object.fromEntries(HistoryCounters.map((counter) => [counter, counts[counter]])),
        });
      }
      return {
        body: {
          ...(request.agentClass === undefined ? {} : { class: request.agentClass }),
          from: toIso(fromMinute * MINUTE_MS),
          to: toIso(toMinute * MINUTE_MS),
          stepSeconds,
          points,
        },
      };
    },

    /** The agent's kept events (agent-log.ts), newest first. */
    async agent(
      principal: Principal,
      agentId: string,
      request: { cursor?: string; limit?: number },
    ): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      if (!(await registry.get(principal.tenant, agentId)))
        throw new BeaconError("not_found", "No such agent");
      const page = await agentEvents.list(principal.tenant, agentId, {
        ...pageRequestOf(request, isAgentLogKey),
        descending: true,
      });
      return { body: pageBodyOf(page, viewOf) };
    },
  };
}

function viewOf(event: AgentLogEvent) {
  const { tenant: _tenant, version: _version, ...rest } = event;
  return { ...rest, at: toIso(event.at) };
}

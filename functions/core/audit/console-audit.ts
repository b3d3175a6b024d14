import { BeaconError } from "../errors.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { isTimeOrderedKey, pageBodyOf, pageRequestOf, timeOfKey, toIso } from "../paging.js";
import type { ConsoleResult } from "../result.js";
import type { AuditRecord } from "./model.js";
import type { AuditLog } from "./ports.js";

export interface AuditRequest {
  from?: number;
  to?: number;
  actor?: string;
  operation?: string;
  cursor?: string;
  limit?: number;
}

/** The tenant's audit trail, for its admins: who changed what shows who may do what, and from where. */
export function makeAuditApi(deps: { audit: AuditLog }) {
  return {
    /** Newest first, within `from` (inclusive) and `to` (exclusive), by actor and operation when asked. */
    async list(principal: Principal, request: AuditRequest): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      const { from, to } = request;
      if ((from !== undefined && !Number.isFinite(from)) || (to !== undefined && !Number.isFinite(to))) {
        throw new BeaconError("invalid_request", "from and to must be times Beacon can read");
      }
      if (from !== undefined && to !== undefined && from >= to) {
        throw new BeaconError("invalid_request", "from must be before to");
      }
      // A cursor continues the query it came from: one outside this query's times is not from it.
      const page = pageRequestOf(request, (key) => isTimeOrderedKey(key) && within(timeOfKey(key), from, to));
      const records = await deps.audit.list(principal.tenant, {
        from,
        to,
        actor: request.actor,
        operationId: request.operation,
        limit: page.limit,
        after: page.after,
      });
      return { body: pageBodyOf(records, viewOf) };
    },
  };
}

const within = (time: number, from: number | undefined, to: number | undefined) =>
  (from === undefined || time >= from) && (to === undefined || time < to);

function viewOf(record: AuditRecord) {
  const { tenant: _tenant, ...rest } = record;
  return { ...rest, at: toIso(record.at) };
}

import { type Principal, requireRole } from "../identity/principal.js";
import { toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import type { UsageStore } from "./ports.js";
import { type StatementPricing, statementMonthOf, statementOf, statementPricing } from "./statement.js";
import { DAY_MS, type StoredSnapshot, storedDaysOf } from "./stored.js";
import { HOUR_MS, usageHoursOf, usageSummaryOf } from "./usage.js";

/** What the caller's tenant used, hour by hour, in all, and priced by month: for whoever pays for it, so admins only. */
export function makeUsageApi(deps: { usage: UsageStore; clock: Clock; usagePricing?: StatementPricing }) {
  const { usage, clock } = deps;
  const pricing = deps.usagePricing ?? statementPricing();
  const snapshotsOf = (tenant: string, fromHour: number, toHour: number) => {
    const { fromDay, toDay } = storedDaysOf(fromHour, toHour);
    return usage.readStored(tenant, fromDay, toDay);
  };
  return {
    async get(principal: Principal, request: { from?: number; to?: number }): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      const { fromHour, toHour } = usageHoursOf(request, clock.now());
      const [hours, snapshots] = await Promise.all([
        usage.read(principal.tenant, fromHour, toHour),
        snapshotsOf(principal.tenant, fromHour, toHour),
      ]);
      const { rows, totals } = usageSummaryOf(hours);
      return {
        body: {
          from: toIso(fromHour * HOUR_MS),
          to: toIso(toHour * HOUR_MS),
          hours: rows.map(({ hour, ...row }) => ({ hour: toIso(hour * HOUR_MS), ...row })),
          totals,
          storedDays: snapshots.map(storedDayBody),
        },
      };
    },

    /** The month's statement (`YYYY-MM`, UTC; the current month so far without it). */
    async statement(principal: Principal, request: { month?: string }): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      const month = statementMonthOf(request.month, clock.now());
      const [hours, snapshots] = await Promise.all([
        usage.read(principal.tenant, month.fromHour, month.toHour),
        snapshotsOf(principal.tenant, month.fromHour, month.toHour),
      ]);
      return { body: statementOf(month, usageSummaryOf(hours), pricing, snapshots) };
    },
  };
}

/** A day's snapshot as `GET /usage` answers it: the day (UTC midnight), when it was taken, and its figures. */
const storedDayBody = ({ day, takenAt, stored }: StoredSnapshot) => ({
  day: toIso(day * DAY_MS),
  takenAt: toIso(takenAt),
  ...stored,
});

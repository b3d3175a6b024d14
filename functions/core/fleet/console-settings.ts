import { BeaconError } from "../errors.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { dropUndefined } from "../json.js";
import { toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import { canonicalTimeZone } from "../schedules/windows.js";
import type { FollowHeldOperations } from "./agent-windows.js";
import type { TenantSettings, TenantSettingsChange, TenantSettingsStore } from "./ports.js";

export interface SettingsDependencies {
  tenantSettings: TenantSettingsStore;
  clock: Clock;
  /** A new time zone moves every window's openings: held operations follow. */
  followHeldOperations: FollowHeldOperations;
}

const view = (settings: TenantSettings) =>
  dropUndefined({
    cleanUpAfterDays: settings.cleanUpAfterDays,
    timeZone: settings.timeZone,
    updatedAt: toIso(settings.updatedAt),
  });

/** The change with its time zone as Intl names it, which the windows' arithmetic then finds as it is. */
function checked(change: TenantSettingsChange): TenantSettingsChange {
  if (typeof change.timeZone !== "string") return change;
  const timeZone = canonicalTimeZone(change.timeZone);
  if (!timeZone)
    throw new BeaconError("invalid_request", `timeZone: no time zone is named ${change.timeZone}`);
  return { ...change, timeZone };
}

/** What the tenant set for its whole fleet: every role reads it, admins change it. */
export function makeSettingsApi(deps: SettingsDependencies) {
  const { tenantSettings, clock } = deps;
  return {
    async get(principal: Principal): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      return { body: view(await tenantSettings.get(principal.tenant)) };
    },

    async put(principal: Principal, change: TenantSettingsChange): Promise<ConsoleResult> {
      requireRole(principal, "admin");
      const settings = await tenantSettings.put(principal.tenant, checked(change), clock.now());
      const followed = change.timeZone === undefined ? {} : await deps.followHeldOperations(principal.tenant);
      return { body: view(settings), streamError: followed.streamError };
    },
  };
}

import type { AgentClassRecord } from "../agents/ports.js";
import {
  DEFAULT_TIME_ZONE,
  type MaintenanceWindow,
  type WindowState,
  windowState,
} from "../schedules/windows.js";
import type { TenantSettingsStore } from "./ports.js";

/**
 * Whether a class's maintenance windows are open at `now`, in its tenant's time zone: the zone is read only
 * for a class that has windows, so a class without any costs nothing.
 */
export function classWindowState(
  tenantSettings: Pick<TenantSettingsStore, "get">,
  record: AgentClassRecord | undefined,
  now: number,
): Promise<WindowState> {
  return record ? windowsState(tenantSettings, record.tenant, [record.maintenanceWindows], now) : open();
}

const open = async (): Promise<WindowState> => ({ open: true });

/**
 * Whether every one of these sets of windows (a class's, a group's) is open at `now`, in the tenant's time
 * zone, read only when some set has windows. Closed, it waits for the latest of the next openings of those
 * closed: the earliest time all could be open.
 */
export async function windowsState(
  tenantSettings: Pick<TenantSettingsStore, "get">,
  tenant: string,
  sets: (MaintenanceWindow[] | undefined)[],
  now: number,
): Promise<WindowState> {
  const withWindows = sets.filter((windows): windows is MaintenanceWindow[] => (windows?.length ?? 0) > 0);
  if (withWindows.length === 0) return open();
  const { timeZone = DEFAULT_TIME_ZONE } = await tenantSettings.get(tenant);
  const states = withWindows.map((windows) => windowState(now, windows, timeZone));
  if (states.length === 1) return states[0] as WindowState;
  const closed = states.filter((state) => !state.open);
  if (closed.length === 0) return { open: true };
  return { open: false, nextOpening: Math.max(...closed.map((state) => state.nextOpening ?? now)) };
}

import type { AgentClassRecord } from "../agents/ports.js";
import { DEFAULT_TIME_ZONE, type WindowState, windowState } from "../schedules/windows.js";
import type { TenantSettingsStore } from "./ports.js";

/**
 * Whether a class's maintenance windows are open at `now`, in its tenant's time zone: the zone is read only
 * for a class that has windows, so a class without any costs nothing.
 */
export async function classWindowState(
  tenantSettings: Pick<TenantSettingsStore, "get">,
  record: AgentClassRecord | undefined,
  now: number,
): Promise<WindowState> {
  const windows = record?.maintenanceWindows ?? [];
  if (!record || windows.length === 0) return { open: true };
  const { timeZone = DEFAULT_TIME_ZONE } = await tenantSettings.get(record.tenant);
  return windowState(now, windows, timeZone);
}

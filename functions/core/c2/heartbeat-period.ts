import { asArray, asObject, asString } from "../json.js";

/**
 * The agent's own heartbeat period, as its manifest states it (REAL-AGENTS.md, §9): the UPDATE PROPERTIES
 * entry of `supportedOperations` lists the agent's current properties in `availableProperties`.
 *
 * - MiNiFi Java: `c2.agent.heartbeat.period`, milliseconds; listed without a value, the library's default.
 * - MiNiFi C++: `nifi.c2.agent.heartbeat.period`, a time period (`"30 sec"`) or a bare number of ms.
 *
 * Undefined when the manifest states none Beacon can read: the agent is held to its class's interval.
 */
export function ownHeartbeatPeriodMsOf(supportedOperations: readonly unknown[]): number | undefined {
  for (const property of availablePropertiesOf(supportedOperations)) {
    const name = asString(property?.propertyName);
    const value = asString(property?.propertyValue)?.trim() ?? "";
    if (name === JAVA_PERIOD_PROPERTY) return value === "" ? JAVA_DEFAULT_PERIOD_MS : periodMsOf(value);
    if (name === CPP_PERIOD_PROPERTY) return periodMsOf(value);
  }
  return undefined;
}

const JAVA_PERIOD_PROPERTY = "c2.agent.heartbeat.period";
const JAVA_DEFAULT_PERIOD_MS = 1_000;
const CPP_PERIOD_PROPERTY = "nifi.c2.agent.heartbeat.period";

/**
 * Periods below this are raised to it: at shorter ones three missed heartbeats last no longer than a slow
 * request or a sweeper run takes, so an agent would be announced offline for Beacon's own latency.
 */
export const MIN_OWN_HEARTBEAT_PERIOD_MS = 1_000;

/**
 * Periods above this are lowered to it: the cache forgets an agent a week after its last heartbeat, and the
 * offline allowance (three periods) must end while the cache still knows the agent, or its outage would go
 * unannounced. An agent that really heartbeats less often than daily is still announced only after 3 days.
 */
export const MAX_OWN_HEARTBEAT_PERIOD_MS = 24 * 3600 * 1000;

const UNIT_MS: Record<string, number> = {
  ms: 1,
  msec: 1,
  msecs: 1,
  millis: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1_000,
  sec: 1_000,
  secs: 1_000,
  second: 1_000,
  seconds: 1_000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

/**
 * A time period as MiNiFi writes one: whole number, optional spaces, optional unit (none: milliseconds),
 * any case. Undefined for anything else and for zero, which no agent can run with; others are held
 * between MIN_OWN_HEARTBEAT_PERIOD_MS and MAX_OWN_HEARTBEAT_PERIOD_MS.
 */
export function periodMsOf(text: string): number | undefined {
  const match = /^(\d{1,15})\s*([a-z]*)$/.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  const unitMs = match[2] === "" ? 1 : UNIT_MS[match[2] as string];
  const amount = Number(match[1]);
  if (unitMs === undefined || amount === 0) return undefined;
  return Math.min(Math.max(amount * unitMs, MIN_OWN_HEARTBEAT_PERIOD_MS), MAX_OWN_HEARTBEAT_PERIOD_MS);
}

/** The UPDATE PROPERTIES entry's properties: C++ writes `update`/`properties`, Java `UPDATE`/`PROPERTIES`. */
export function availablePropertiesOf(supportedOperations: readonly unknown[]) {
  const update = supportedOperations
    .map((entry) => asObject(entry))
    .find((entry) => asString(entry?.type)?.toUpperCase() === "UPDATE");
  const operands = Object.entries(asObject(update?.properties) ?? {});
  const properties = operands.find(([operand]) => operand.toUpperCase() === "PROPERTIES")?.[1];
  return asArray(asObject(properties)?.availableProperties).map((property) => asObject(property));
}

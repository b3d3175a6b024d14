/**
 * `npm run capacity`: what a fleet costs on AWS a month, option by option, from Beacon's measured
 * per-heartbeat units and AWS list prices, with the quotas each size crosses.
 *
 *   npm run capacity                                  10,000 to 10,000,000 agents at 60 s
 *   npm run capacity -- --agents 250000 --interval 30
 *   npm run capacity -- --json                        the same as JSON
 *   npm run capacity -- --set newConnectionsPerHeartbeat=0 --budget 1200 --largest-tenant 20000
 *   npm run capacity -- --measure [--write]           measure the byte and cache memory units (and record them)
 */
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import {
  defaultDeployment,
  type Measurement,
  readPrices,
  readUnits,
  recordMeasurements,
  type UnitName,
  unitNames,
  withValues,
} from "./inputs.js";
import { estimate } from "./model.js";
import { checkQuotas } from "./quotas.js";
import { report, type Sized } from "./table.js";
import { targetReport } from "./target.js";

const DEFAULT_SIZES = [10_000, 100_000, 1_000_000, 10_000_000];
const TARGET_AGENTS = 100_000;

const { values } = parseArgs({
  options: {
    agents: { type: "string" },
    interval: { type: "string", default: "60" },
    budget: { type: "string", default: "1200" },
    "largest-tenant": { type: "string" },
    set: { type: "string", multiple: true, default: [] },
    json: { type: "boolean", default: false },
    measure: { type: "boolean", default: false },
    write: { type: "boolean", default: false },
  },
});

const positive = (name: string, text: string | undefined): number => {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`--${name} must be a positive number; got "${text}"`);
  return value;
};

if (values.measure) {
  const { measureBytes, measureCacheMemory } = await import("./measure.js");
  const measured = { ...(await measureBytes()), cacheMemoryBytesPerAgent: await measureCacheMemory() };
  const cpu = cpus();
  const machine = `${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, Node ${process.version}`;
  const date = new Date().toISOString().slice(0, 10);
  for (const [name, { value, how }] of Object.entries(measured))
    console.log(`${name.padEnd(30)}${String(value).padStart(8)}  ${how}`);
  if (values.write) {
    recordMeasurements(
      Object.fromEntries(
        Object.entries(measured).map(([name, { value, how }]) => [name, { value, how, machine, date }]),
      ) as Partial<Record<UnitName, Measurement>>,
    );
    console.log("recorded in scripts/capacity/units.json");
  }
} else {
  const overrides = Object.fromEntries(
    (values.set as string[]).map((assignment) => {
      const [name, text] = assignment.split("=");
      if (!unitNames.includes(name as UnitName))
        throw new Error(`--set: no unit "${name}" (${unitNames.join(", ")})`);
      const value = Number(text);
      if (text === undefined || text === "" || !Number.isFinite(value) || value < 0)
        throw new Error(`--set ${name} must be a number ≥ 0; got "${text}"`);
      return [name, value];
    }),
  );
  const units = withValues(readUnits(), overrides);
  const prices = readPrices();
  const intervalSeconds = positive("interval", values.interval);
  const sizes = values.agents === undefined ? DEFAULT_SIZES : [positive("agents", values.agents)];
  const largestTenant = values["largest-tenant"];
  const sized: Sized[] = sizes.map((agents) => {
    const estimated = estimate({ agents, intervalSeconds }, units, prices, defaultDeployment);
    const tenantAgents =
      largestTenant === undefined ? agents : Math.min(agents, positive("largest-tenant", largestTenant));
    return { estimate: estimated, quotas: checkQuotas(estimated, units, defaultDeployment, tenantAgents) };
  });
  const target = targetReport(
    { agents: values.agents === undefined ? TARGET_AGENTS : (sizes[0] as number), intervalSeconds },
    positive("budget", values.budget),
    units,
    prices,
    defaultDeployment,
  );
  console.log(
    values.json
      ? JSON.stringify(
          { region: prices.region, pricesTakenOn: prices.takenOn, sizes: sized, target },
          null,
          2,
        )
      : report(sized, target, units, prices),
  );
}

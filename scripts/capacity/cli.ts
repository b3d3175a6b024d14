/**
 * `npm run capacity`: what a fleet costs on AWS a month, option by option, from Beacon's measured
 * per-heartbeat units and AWS list prices, with the quotas each size crosses.
 *
 *   npm run capacity                                  10,000 to 10,000,000 agents at 60 s
 *   npm run capacity -- --agents 250000 --interval 30
 *   npm run capacity -- --json                        the same as JSON
 *   npm run capacity -- --java-share 1 --server-key ecdsaP256   an all-Java fleet, an ECDSA certificate
 *   npm run capacity -- --set metricLineBytesPerHeartbeat=0 --budget 1200 --largest-tenant 20000
 *   npm run capacity -- --measure [--write]           measure the byte, TLS setup and cache memory units (and record them)
 */
import { cpus } from "node:os";
import { parseCommandLine } from "../common/command-line.mjs";
import {
  defaultDeployment,
  type Measurement,
  readPrices,
  readUnits,
  recordMeasurements,
  type ServerKeyType,
  serverKeyTypes,
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
/**
 * Half the fleet MiNiFi Java, half MiNiFi C++, until a customer's fleet says otherwise: the incumbent's
 * scenario is all Java (--java-share 1), edge gateways run C++.
 */
const DEFAULT_JAVA_SHARE = 0.5;

type Options = ReturnType<typeof parseOptions>;

const USAGE = `Usage: npm run capacity -- [--agents <n>] [--interval <s>] [--java-share <0..1>] [--server-key <type>]
         [--budget <USD>] [--largest-tenant <n>] [--set <unit>=<value>]… [--json]
       npm run capacity -- --measure [--write]

What a fleet costs on AWS a month, option by option, with the quotas each size crosses.
  --agents          one fleet size (default: 10,000 to 10,000,000)
  --interval        seconds between an agent's heartbeats (default 60)
  --java-share      the share of MiNiFi Java agents (default ${DEFAULT_JAVA_SHARE})
  --server-key      the agent API's certificate key: ${serverKeyTypes.join(", ")} (default ${defaultDeployment.serverKey})
  --budget          the monthly budget the target is held to, in USD (default 1200)
  --largest-tenant  agents of the largest tenant, for the per-tenant quotas (default: the whole fleet)
  --set             a measured unit's value instead of units.json's, e.g. metricLineBytesPerHeartbeat=0
  --json            print the figures as JSON
  --measure         measure the byte, TLS setup and cache memory units on this machine (--write records them)`;

function parseOptions() {
  return parseCommandLine(USAGE, {
    options: {
      agents: { type: "string" },
      interval: { type: "string", default: "60" },
      "java-share": { type: "string", default: String(DEFAULT_JAVA_SHARE) },
      "server-key": { type: "string", default: defaultDeployment.serverKey },
      budget: { type: "string", default: "1200" },
      "largest-tenant": { type: "string" },
      set: { type: "string", multiple: true, default: [] },
      json: { type: "boolean", default: false },
      measure: { type: "boolean", default: false },
      write: { type: "boolean", default: false },
    },
  }).values;
}

/** A mistake in an option's value, told in one line without a stack. */
class UsageError extends Error {}

const positive = (name: string, text: string | undefined): number => {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new UsageError(`--${name} must be a positive number; got "${text}"`);
  return value;
};

function unitValues(assignments: string[]): Partial<Record<UnitName, number>> {
  return Object.fromEntries(
    assignments.map((assignment) => {
      const [name, text] = assignment.split("=");
      if (!unitNames.includes(name as UnitName))
        throw new UsageError(`--set: no unit "${name}"; the units are ${unitNames.join(", ")}`);
      const value = Number(text);
      if (text === undefined || text === "" || !Number.isFinite(value) || value < 0)
        throw new UsageError(`--set ${name} must be a number ≥ 0; got "${text}"`);
      return [name, value];
    }),
  );
}

async function measure(write: boolean): Promise<void> {
  const { measureBytes, measureCacheMemory } = await import("./measure.js");
  const { measureTlsSetup, tlsSetupUnits } = await import("./tls-setup.js");
  const { calibrationLine } = await import("../bench/calibration.js");
  console.log(await calibrationLine());
  const handshakes = await measureTlsSetup();
  console.log(
    "TLS setup: bytes per full mutual-TLS handshake (median), server key, version, chain and session tickets",
  );
  for (const each of handshakes)
    console.log(
      `  ${each.keyType.padEnd(10)}${each.tlsVersion.padEnd(8)}${each.chain.padEnd(20)}${each.tickets.padEnd(10)}` +
        `${String(each.certificates).padStart(2)} certificates ${String(each.certificateBytes).padStart(5)} B` +
        `  server sent ${String(each.serverBytes).padStart(5)} B, client ${String(each.clientBytes).padStart(5)} B` +
        `  ${each.sessionTickets} ticket(s)  ${each.cipher}`,
    );
  const measured = {
    ...(await measureBytes()),
    ...tlsSetupUnits(handshakes),
    cacheMemoryBytesPerAgent: await measureCacheMemory(),
    ...(await measureServiceHandshakeUnits()),
  };
  const cpu = cpus();
  const machine = `${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, Node ${process.version}`;
  const date = new Date().toISOString().slice(0, 10);
  for (const [name, { value, how }] of Object.entries(measured))
    console.log(`${name.padEnd(30)}${String(value).padStart(8)}  ${how}`);
  if (write) {
    recordMeasurements(
      Object.fromEntries(
        Object.entries(measured).map(([name, { value, how }]) => [name, { value, how, machine, date }]),
      ) as Partial<Record<UnitName, Measurement>>,
    );
    console.log("recorded in scripts/capacity/units.json");
  }
}

/**
 * The agent service's CPU per new connection, where it terminates mutual TLS behind the NLB, and its answer's
 * headers: from the agent service itself (scripts/bench/service-handshakes.ts).
 */
async function measureServiceHandshakeUnits(): Promise<
  Partial<Record<UnitName, { value: number; how: string }>>
> {
  const { describeServiceHandshakes, measureServiceHandshakes } = await import(
    "../bench/service-handshakes.js"
  );
  const figures = await measureServiceHandshakes(SERVICE_HEARTBEATS, SERVICE_RUNS);
  return {
    tlsHandshakeCpuMs: {
      value: Number(figures.handshakeCpuMs.median.toFixed(2)),
      how:
        "npm run capacity -- --measure (npm run bench:service-handshake, scripts/bench/service-handshakes.ts): the " +
        "agent service (functions/agent-service/main.ts, its own process over local backends) terminating mutual " +
        "TLS 1.3 with a one-tier private CA's ECDSA P-256 leaf, stateful tickets (functions/shared/agent-tls.ts) and " +
        "the dev CA's bundle for clients; its process's CPU per steady C++ light heartbeat (gzipped) sent on a new " +
        "connection each (handshake, heartbeat, close, as MiNiFi C++ does) less per heartbeat on one kept-alive " +
        `connection, idle subtracted, the two ways alternating in blocks: ${describeServiceHandshakes(figures)}`,
    },
    responseHeaderBytes: {
      value: figures.responseHeaderBytes,
      how:
        "npm run capacity -- --measure (scripts/bench/service-handshakes.ts): the status line and headers the agent " +
        "service (the agent API's handler behind its own HTTP server) answers a steady C++ heartbeat with, as sent " +
        "(Content-Type, Date, Connection, Keep-Alive, Content-Length); an ALB adds none to a target's answer, API " +
        "Gateway its request id (about 50 B more)",
    },
  };
}

const SERVICE_HEARTBEATS = 500;
const SERVICE_RUNS = 5;

const share = (text: string | undefined): number => {
  const value = Number(text);
  if (text === undefined || text === "" || !Number.isFinite(value) || value < 0 || value > 1)
    throw new UsageError(`--java-share must be a number from 0 to 1; got "${text}"`);
  return value;
};

const serverKey = (text: string | undefined): ServerKeyType => {
  if (!serverKeyTypes.includes(text as ServerKeyType))
    throw new UsageError(`--server-key must be one of ${serverKeyTypes.join(", ")}; got "${text}"`);
  return text as ServerKeyType;
};

function capacity(options: Options): string {
  const units = withValues(readUnits(), unitValues(options.set as string[]));
  const prices = readPrices();
  const intervalSeconds = positive("interval", options.interval);
  const javaShare = share(options["java-share"]);
  const deployment = { ...defaultDeployment, serverKey: serverKey(options["server-key"]) };
  const sizes = options.agents === undefined ? DEFAULT_SIZES : [positive("agents", options.agents)];
  const largestTenant = options["largest-tenant"];
  const sized: Sized[] = sizes.map((agents) => {
    const estimated = estimate({ agents, intervalSeconds, javaShare }, units, prices, deployment);
    const tenantAgents =
      largestTenant === undefined ? agents : Math.min(agents, positive("largest-tenant", largestTenant));
    return { estimate: estimated, quotas: checkQuotas(estimated, units, deployment, tenantAgents) };
  });
  const target = targetReport(
    {
      agents: options.agents === undefined ? TARGET_AGENTS : (sizes[0] as number),
      intervalSeconds,
      javaShare,
    },
    positive("budget", options.budget),
    units,
    prices,
    deployment,
  );
  return options.json
    ? JSON.stringify(
        { region: prices.region, pricesTakenOn: prices.takenOn, units, sizes: sized, target },
        null,
        2,
      )
    : report(sized, target, units, prices);
}

try {
  const options = parseOptions();
  if (options.measure) await measure(options.write as boolean);
  else console.log(capacity(options));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`capacity: ${error.message}`);
  process.exitCode = 2;
}

/**
 * What the heartbeat's one cache round trip costs the cache for an agent with parameter values of its own,
 * against one without: the sighting script's time inside redis-server per call (INFO commandstats), for a
 * class whose policy renders two versions with `--parameters` declared parameters each, the agent overriding a
 * quarter of them. The script computes the agent's own flow ids there, so its cost grows with the parameters.
 *
 *   npm run bench:sighting -- [--parameters 20] [--calls 20000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { RedisHotState } from "../../functions/adapters/redis/hot-state.js";
import type { AgentOwnValues, HotSighting } from "../../functions/core/agents/ports.js";
import type { FlowParameter } from "../../functions/core/flows/parameters.js";
import { renderingOf } from "../../functions/core/parameters/rendered-flow-ids.js";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { findFreePort } from "../local/ports.js";
import { startRedisServer } from "../local/redis-server.js";
import { calibrate } from "./calibration.js";

const USAGE = `Usage: npm run bench:sighting -- [--parameters <n>] [--calls <n>]

Times the heartbeat's cache script inside a redis-server of its own, for an agent with parameter values of its
own against one without.
  --parameters  the parameters each of the class's two versions declares (default 20)
  --calls       steady heartbeats recorded of each agent (default 20000)`;

const { values } = parseCommandLine(USAGE, {
  options: { parameters: { type: "string", default: "20" }, calls: { type: "string", default: "20000" } },
});
const PARAMETERS = Number(values.parameters);
const CALLS = Number(values.calls);
if (!Number.isInteger(PARAMETERS) || PARAMETERS < 1 || !Number.isInteger(CALLS) || CALLS < 1)
  exitWithUsage(USAGE, "--parameters and --calls are whole numbers of at least 1");
const TENANT = "acme-industrial";
const SUPPORTED = { UPDATE: ["CONFIGURATION"] };

const declared: FlowParameter[] = Array.from({ length: PARAMETERS }, (_, index) => ({
  name: `site.parameter.${index}`,
  sensitive: index % 5 === 0,
}));
const classValues = declared.map(({ name, sensitive }) => ({
  name,
  value: sensitive
    ? { secretRef: `ssm:/beacon/${TENANT}/${name}` }
    : { value: `broker-${name}.plant.example:9092` },
}));
const own: AgentOwnValues = new Map(
  declared.filter((_, index) => index % 4 === 0).map(({ name }) => [name, { value: `own-${name}` }]),
);

/** The script's microseconds per call since the last reset. */
async function microsecondsPerCall(redis: Redis): Promise<number> {
  const stats = (await redis.info("commandstats")).split("\n");
  const line = stats.find((entry) => entry.startsWith("cmdstat_evalsha:"));
  return Number(/usec_per_call=([\d.]+)/.exec(line ?? "")?.[1] ?? Number.NaN);
}

async function main() {
  const stateDir = mkdtempSync(path.join(tmpdir(), "beacon-sighting-"));
  const port = await findFreePort();
  const server = await startRedisServer({ port, stateDir });
  const redis = new Redis(`redis://127.0.0.1:${port}`);
  try {
    const hotState = new RedisHotState(redis);
    const renderings = ["a", "b"].map((digit) =>
      renderingOf({ hash: digit.repeat(64), parameters: declared }, classValues),
    );
    const [previous, current] = renderings as [
      NonNullable<(typeof renderings)[0]>,
      NonNullable<(typeof renderings)[0]>,
    ];
    await hotState.rememberRevocations(TENANT, []);
    await hotState.rememberClassFlow(
      TENANT,
      "pumps",
      { target: current.hash, accepted: [previous.flowId, current.flowId], renderings: [previous, current] },
      30_000,
    );
    const measure = async (agentId: string, ownValues: AgentOwnValues) => {
      const sighting = (now: number): HotSighting => ({
        tenant: TENANT,
        agentId,
        serialNumber: "0A",
        now,
        agentClass: "pumps",
        manifestHash: "manifest-1",
        checkpointIntervalMs: 3_600_000,
        catchUpRetryMs: 1_800_000,
      });
      await hotState.recordSighting(sighting(1));
      await hotState.markRegistered(TENANT, agentId, { now: 1, ownValues, agentClass: "pumps" });
      await hotState.rememberAgentManifest(TENANT, agentId, {
        hash: "manifest-1",
        manifestId: "m".repeat(64),
        supportedOperations: SUPPORTED,
      });
      // Its first steady sighting claims the catch-up; the rest report the flow id it was sent.
      const first = await hotState.recordSighting(sighting(2));
      const flowId = first.recorded ? first.sighting.catchUp?.flowId : undefined;
      await redis.config("RESETSTAT");
      for (let call = 0; call < CALLS; call++) {
        const outcome = await hotState.recordSighting({ ...sighting(3 + call), flowId });
        if (!outcome.recorded || outcome.sighting.catchUp)
          throw new Error("a steady sighting claimed a catch-up");
      }
      return microsecondsPerCall(redis);
    };
    const plain = await measure("agent-plain", new Map());
    const overriding = await measure("agent-own", own);
    console.info(
      JSON.stringify(
        {
          parameters: PARAMETERS,
          renderings: renderings.length,
          ownValues: own.size,
          calls: CALLS,
          usecPerCall: { withoutOwnValues: plain, withOwnValues: overriding },
          ratio: Number((overriding / plain).toFixed(2)),
          calibration: await calibrate(),
        },
        null,
        2,
      ),
    );
  } finally {
    redis.disconnect();
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

await main();

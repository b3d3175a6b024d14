/**
 * `npm run bench:console`'s code, small: a few hundred agents written as Beacon writes them, the console
 * in Chromium showing their first pages. It checks what the benchmark wrote and showed, never how fast.
 */
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, expect, it } from "vitest";
import { DynamoFleetRegistry } from "../../functions/adapters/dynamodb/fleet-registry.js";
import { RedisFleetHotState } from "../../functions/adapters/redis/fleet-hot-state.js";
import { makeDynamoDbClient } from "../../functions/runtime/aws-clients/dynamodb.js";
import { makeRedisClient } from "../../functions/runtime/redis-client.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { FLEET_CLASSES, fleetAgent } from "./agent-fleet.js";
import { reportLines, runConsoleListBench } from "./console-list.js";
import { smallBench } from "./small-bench.js";

const AGENTS = 300;
const ROUNDS = 2;
const bench = smallBench("console-list", AGENTS, ROUNDS);
const documents = DynamoDBDocumentClient.from(makeDynamoDbClient(bench.env));
const redis = makeRedisClient({ url: bench.env[EnvNames.redisUrl] as string, commandTimeoutMs: 10_000 });

afterAll(() => {
  documents.destroy();
  redis.disconnect();
});

it("writes a fleet as Beacon does and measures the Agents page's first page over it, cold and warm", async () => {
  const { tenant } = bench;
  const report = await runConsoleListBench(bench);

  // The registry holds every agent in its classes, and the cache those it keeps, as the console counts them.
  const registry = new DynamoFleetRegistry(documents, bench.env[EnvNames.tableName] as string);
  const perClass = await Promise.all(FLEET_CLASSES.map((name) => registry.count(tenant, name)));
  expect(perClass.reduce((sum, count) => sum + count, 0)).toBe(AGENTS);
  expect(perClass.every((count) => count > 0)).toBe(true);
  const { online, quiet, gone } = report.fleet.byPresence;
  expect([online + quiet + gone, report.fleet.hotStates]).toEqual([AGENTS, online + quiet]);
  expect([online, quiet, gone].every((count) => count > 0)).toBe(true);
  // Heartbeating agents were seen within the minute, quiet ones hours ago.
  const counts = await new RedisFleetHotState(redis).classCounts(
    tenant,
    FLEET_CLASSES.map((name) => ({ name, onlineSince: Date.now() - 3_600_000 })),
  );
  const cached = [...counts.values()];
  expect(cached.reduce((sum, { total }) => sum + total, 0)).toBe(online + quiet);
  expect(cached.reduce((sum, { online: recent }) => sum + recent, 0)).toBe(online);

  // Every case showed the API's first page, once a round.
  expect(report.mismatches).toEqual([]);
  // The filtered cases show the class's agents seen within the hour: the heartbeating ones.
  const heartbeating = Array.from({ length: AGENTS }, (_, index) => fleetAgent(index)).filter(
    ({ agentClass, presence }) => agentClass === FLEET_CLASSES[0] && presence === "online",
  ).length;
  expect(report.cases.map(({ rows }) => rows)).toEqual(
    [50, 50, heartbeating, heartbeating].map((rows) => Math.min(rows, 50)),
  );
  for (const result of report.cases) {
    expect(result.samplesMs).toHaveLength(ROUNDS);
    expect(result.samplesMs.every((ms) => ms > 0)).toBe(true);
    expect(result.maxMs).toBe(Math.max(...result.samplesMs));
    // The page asked the API for the agents it showed, and the browser timed the answer.
    expect([result.p50ApiAskedMs, result.p50ApiMs].every((ms) => ms > 0)).toBe(true);
  }
  const lines = reportLines(report, ROUNDS);
  expect(lines[0]).toMatch(/^machine: \d+ × .+, Node v\d+.*, Chromium \d+/);
  expect(lines.at(-1)).toMatch(/^budget: the cold first page's median \d+ ms, (within|OVER) 1000 ms$/);
  console.log(lines.join("\n"));
}, 300_000);

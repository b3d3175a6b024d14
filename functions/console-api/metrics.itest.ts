/**
 * The fleet's metrics as a real Prometheus (Debian's, which `node scripts/build/setup.mjs --for test` installs)
 * scrapes them from `npm start`'s console API with bearer tokens: what it stored, asked through its query API,
 * is what the simulated agents did, each tenant's in its own series, and a token limited to a class scrapes
 * that class only.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFreePorts } from "../../scripts/local/ports.js";
import { type LocalStack, startLocalStack, stopGroup, tail } from "../../scripts/test-support/local-stack.js";
import { until, untilTrue } from "../../scripts/test-support/until.js";

let stack: LocalStack;
let prometheus: ChildProcess | undefined;
let prometheusOutput = "";
let prometheusUrl: string;
const agents: ChildProcess[] = [];

async function localToken(claims: { tenant: string; role: string; classes?: string }): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${stack.ports.web}/local/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(claims),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

function simulatedAgents(args: string[]): void {
  agents.push(
    spawn("npm", ["run", "-s", "agents", "--", "--interval", "1", ...args], {
      cwd: process.cwd(),
      env: stack.env,
      stdio: "ignore",
      detached: true,
    }),
  );
}

interface Series {
  metric: Record<string, string>;
  value: [number, string];
}

/** What Prometheus stored for the PromQL query, at its latest scrape. */
async function query(promql: string): Promise<Series[]> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const answer = (await response.json()) as { status: string; data: { result: Series[] } };
  expect(answer.status).toBe("success");
  return answer.data.result;
}

/** The series' values by the label `by`, e.g. by class. */
const valuesBy = (series: Series[], by: string): Record<string, number> =>
  Object.fromEntries(series.map(({ metric, value }) => [metric[by], Number(value[1])]));

beforeAll(async () => {
  if (spawnSync("prometheus", ["--version"]).status !== 0) {
    throw new Error("This test needs Prometheus: run node scripts/build/setup.mjs --for test");
  }
  stack = await startLocalStack("metrics");
  // A second tenant with a class of its own and no agents.
  const otherAdmin = await localToken({ tenant: "other", role: "admin" });
  const created = await fetch(`http://127.0.0.1:${stack.ports.console}/api/v1/classes/elsewhere`, {
    method: "PUT",
    headers: { authorization: `Bearer ${otherAdmin}`, "content-type": "application/json" },
    body: JSON.stringify({ description: "the other tenant's" }),
  });
  expect(created.status).toBeLessThan(300);

  const folder = path.join(stack.localDir, "prometheus");
  mkdirSync(folder, { recursive: true });
  const jobs = {
    dev: await localToken({ tenant: "dev", role: "viewer" }),
    other: await localToken({ tenant: "other", role: "viewer" }),
    "dev-pumps": await localToken({ tenant: "dev", role: "viewer", classes: "pumps" }),
  };
  const scrapeConfigs = Object.entries(jobs).map(([job, token]) => {
    const credentials = path.join(folder, `${job}.token`);
    writeFileSync(credentials, token, { mode: 0o600 });
    return [
      `  - job_name: ${job}`,
      "    metrics_path: /api/v1/fleet/metrics",
      "    authorization:",
      `      credentials_file: ${credentials}`,
      "    static_configs:",
      `      - targets: ["127.0.0.1:${stack.ports.console}"]`,
    ].join("\n");
  });
  const config = path.join(folder, "prometheus.yml");
  writeFileSync(
    config,
    [
      "global:",
      "  scrape_interval: 1s",
      "  scrape_timeout: 1s",
      "scrape_configs:",
      ...scrapeConfigs,
      "",
    ].join("\n"),
  );
  const [port] = await findFreePorts(1);
  prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    "prometheus",
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(folder, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  const collect = (chunk: Buffer) => {
    prometheusOutput += chunk.toString("utf8");
  };
  prometheus.stdout?.on("data", collect);
  prometheus.stderr?.on("data", collect);
  await untilTrue(
    () => `Prometheus to be ready:\n${tail(prometheusOutput)}`,
    async () => (await fetch(`${prometheusUrl}/-/ready`).catch(() => undefined))?.status === 200,
  );

  simulatedAgents(["--class", "pumps", "--count", "3", "--error-bulletins"]);
  simulatedAgents(["--class", "valves", "--count", "2", "--back-pressure"]);
}, 360_000);

afterAll(async () => {
  for (const group of agents) await stopGroup(group);
  if (prometheus) await stopGroup(prometheus);
  await stack?.stop();
}, 120_000);

describe("Prometheus scraping the fleet's metrics", () => {
  it("stores every job's scrape as up: the endpoint answers OpenMetrics it can parse", async () => {
    await untilTrue(
      () => `every scrape to succeed:\n${tail(prometheusOutput)}`,
      async () => {
        const up = valuesBy(await query("up"), "job");
        return up.dev === 1 && up.other === 1 && up["dev-pumps"] === 1;
      },
      120_000,
    );
  });

  it("stores the agents by class and the agents needing attention by reason, as the simulated agents did", async () => {
    let online: Record<string, number> = {};
    await untilTrue(
      () => `3 pumps and 2 valves online, not ${JSON.stringify(online)}`,
      async () => {
        online = valuesBy(await query('beacon_agents{job="dev",status="online"}'), "class");
        return online.pumps === 3 && online.valves === 2;
      },
      120_000,
    );
    const errorBulletins = await until(
      "ERROR bulletins to be counted",
      async () => {
        const counted = valuesBy(
          await query('beacon_agents_attention{job="dev",reason="errorBulletins"}'),
          "class",
        );
        return counted.pumps === 3 ? counted : undefined;
      },
      60_000,
    );
    expect(errorBulletins).toEqual({ pumps: 3, valves: 0 });
    const backPressure = await until(
      "back pressure to be counted",
      async () => {
        const counted = valuesBy(
          await query('beacon_agents_attention{job="dev",reason="backPressure"}'),
          "class",
        );
        return counted.valves === 2 ? counted : undefined;
      },
      60_000,
    );
    expect(backPressure).toEqual({ pumps: 0, valves: 2 });
    // What the latest scrape stored: on a loaded machine one may miss its one-second timeout, and its series
    // go stale until the next.
    for (const promql of [
      'beacon_agents{job="dev",status="offline"}',
      'beacon_rollouts_in_progress{job="dev"}',
    ]) {
      let stored: Record<string, number> = {};
      await untilTrue(
        () => `${promql} to be 0 for both classes, not ${JSON.stringify(stored)}`,
        async () => {
          stored = valuesBy(await query(promql), "class");
          return stored.pumps === 0 && stored.valves === 0 && Object.keys(stored).length === 2;
        },
        60_000,
      );
    }
    await untilTrue(
      "a whole minute's heartbeats to be counted",
      async () => Number((await query('beacon_heartbeats_last_minute{job="dev"}'))[0]?.value[1] ?? 0) > 0,
      150_000,
    );
  });

  it("stores each class's heartbeat counter, growing as the agents heartbeat", async () => {
    let rates: Record<string, number> = {};
    await untilTrue(
      () => `both classes' heartbeat counters to grow, not ${JSON.stringify(rates)}`,
      async () => {
        rates = valuesBy(await query('rate(beacon_heartbeats_total{job="dev"}[20s])'), "class");
        return (rates.pumps ?? 0) > 0 && (rates.valves ?? 0) > 0;
      },
      120_000,
    );
    const totals = valuesBy(await query('beacon_heartbeats_total{job="dev"}'), "class");
    expect(totals.pumps).toBeGreaterThan(0);
    expect(totals.valves).toBeGreaterThan(0);
  });

  it("stores the operations of each class by the state they entered, and its new ERROR bulletins", async () => {
    const admin = await localToken({ tenant: "dev", role: "admin" });
    const listed = await fetch(`http://127.0.0.1:${stack.ports.console}/api/v1/agents?class=pumps`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(listed.status).toBe(200);
    const [pump] = ((await listed.json()) as { items: { agentId: string }[] }).items;
    const queued = await fetch(`http://127.0.0.1:${stack.ports.console}/api/v1/operations`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ agentId: pump?.agentId, operation: "DESCRIBE", operand: "MANIFEST" }),
    });
    expect(queued.status).toBe(201);
    // Each minute's count is a gauge for the minute after it: what Prometheus stored over the run holds it.
    const entered = (state: string) =>
      query(`max_over_time(beacon_operations_last_minute{job="dev",state="${state}"}[15m])`);
    let counted: Record<string, Record<string, number>> = {};
    await untilTrue(
      () => `the operation to be counted queued, delivered and done, not ${JSON.stringify(counted)}`,
      async () => {
        counted = Object.fromEntries(
          await Promise.all(
            ["queued", "delivered", "done"].map(async (state) => [
              state,
              valuesBy(await entered(state), "class"),
            ]),
          ),
        );
        return Object.values(counted).every((byClass) => byClass.pumps === 1);
      },
      180_000,
    );
    expect(Object.values(counted).map((byClass) => byClass.valves)).toEqual([0, 0, 0]);
    expect(valuesBy(await entered("failed"), "class")).toEqual({ pumps: 0, valves: 0 });
    const bulletins = await until(
      "new ERROR bulletins to be counted",
      async () => {
        const byClass = valuesBy(
          await query('max_over_time(beacon_bulletins_last_minute{job="dev",level="ERROR"}[15m])'),
          "class",
        );
        return (byClass.pumps ?? 0) > 0 ? byClass : undefined;
      },
      180_000,
    );
    expect(bulletins.valves).toBe(0);
  });

  it("keeps each tenant to its own series: the other tenant's scrape holds its class, none of dev's", async () => {
    await untilTrue(
      "the other tenant's class to be scraped",
      async () => (await query('beacon_agents{job="other"}')).length > 0,
      60_000,
    );
    const classesOf = async (job: string) =>
      new Set((await query(`{job="${job}",class!=""}`)).map(({ metric }) => metric.class));
    expect([...(await classesOf("other"))]).toEqual(["elsewhere"]);
    expect([...(await classesOf("dev"))].sort()).toEqual(["pumps", "valves"]);
  });

  it("limits a class-scoped token's scrape to its class, without the tenant-wide heartbeat count", async () => {
    await untilTrue(
      "the class-scoped scrape to count the pumps",
      async () =>
        valuesBy(await query('beacon_agents{job="dev-pumps",status="online"}'), "class").pumps === 3,
      60_000,
    );
    const classes = new Set((await query('{job="dev-pumps",class!=""}')).map(({ metric }) => metric.class));
    expect([...classes]).toEqual(["pumps"]);
    expect(await query('beacon_heartbeats_last_minute{job="dev-pumps"}')).toEqual([]);
  });
});

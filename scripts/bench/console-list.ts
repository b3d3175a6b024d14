/**
 * The web console's Agents page over a large fleet, as a user sees it: a tenant of many agents written as
 * Beacon writes them (agent-fleet.ts), the console API in this process behind the local JWT-verifying
 * gateway, the built console behind the local web server, and Debian's Chromium signing in and opening the
 * page, each time from navigation start to the first page's rows on screen. `npm run bench:console`
 * (console.ts) runs it on backends of its own; an integration test runs it small, so that it cannot rot.
 */
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { EnvNames } from "../../functions/shared/env-names.js";
import { buildWebConsole } from "../../web/tools/build.js";
import { ensureDevCertificates } from "../local/certs.js";
import { chromiumExecutable } from "../local/chromium.js";
import { ensureConsoleIssuer, makeJwtAuthorizer } from "../local/console-issuer.js";
import { openTemporaryFunctionLog } from "../local/function-logs.js";
import { loadConsoleApi } from "../local/function-routes.js";
import { startConsoleGateway } from "../local/gateway.js";
import { startWebServer } from "../local/web-server.js";
import { FLEET_CLASSES, type FleetReport } from "./agent-fleet.js";
import { benchConsoleEnv, type FleetBenchOptions, writeBenchFleet } from "./fleet-bench.js";
import { median } from "./median.js";

/** The console's budget: the first page of the agent list on screen within a second of navigating to it. */
export const FIRST_PAGE_BUDGET_MS = 1_000;
/** Rows of the Agents page's first page (web/src/pages/agents.tsx asks the API for 50). */
const PAGE_ROWS = 50;
const FILTER_CLASS = FLEET_CLASSES[0];
/** Where the console keeps its token (web/src/session.ts), per tab. */
const SESSION_TOKEN_KEY = "beacon.console.token";

/**
 * One way of opening the page. A cold case opens it in a new browser context (an empty cache: the
 * console's scripts, its Agents page's chunk and the API's reply all fetched), a warm case again in the
 * context the cold case before it opened (the scripts from its cache, the API asked again).
 */
interface BenchCase {
  name: string;
  /** The page's address, as the console's own links and filters write it. */
  page: string;
  /** The API query the page makes for it, to know which rows it must show. */
  api: () => URLSearchParams;
  cold: boolean;
}

const allAgents = { page: "/agents", api: () => new URLSearchParams({ limit: String(PAGE_ROWS) }) };
/** A class, seen within the last hour, agent id Z to A: the filter and order the form offers. */
const filtered = {
  page: `/agents?class=${FILTER_CLASS}&seen=1h&sort=-agentId`,
  api: () =>
    new URLSearchParams({
      class: FILTER_CLASS,
      lastSeenAfter: new Date(Date.now() - 3_600_000).toISOString(),
      sort: "-agentId",
      limit: String(PAGE_ROWS),
    }),
};
const CASES: BenchCase[] = [
  { name: "all agents, cold", ...allAgents, cold: true },
  { name: "all agents, warm", ...allAgents, cold: false },
  { name: `class ${FILTER_CLASS}, seen within 1 h, Z to A, cold`, ...filtered, cold: true },
  { name: `class ${FILTER_CLASS}, seen within 1 h, Z to A, warm`, ...filtered, cold: false },
];
export const COLD_CASE = CASES[0]?.name as string;

/** What the in-page check reads of the page; the file is typed for Node, not the DOM. */
interface ShownRows {
  length: number;
  [index: number]: { querySelector(selector: string): { textContent: string | null } | null };
}

/** The agent list's request as the browser timed it (Resource Timing). */
interface ListRequestTiming {
  name: string;
  startTime: number;
  responseEnd: number;
}

/**
 * Runs in the page, once a frame: when the table holds the rows expected, the time since navigation start
 * (the page's time origin), the first and last agents shown, and when the page asked the API for them and
 * how long the answer took.
 */
function rowsShown(expected: number) {
  const { document } = globalThis as unknown as {
    document: { querySelectorAll(selector: string): ShownRows };
  };
  const rows = document.querySelectorAll("table tbody tr");
  if (rows.length !== expected) return false;
  const ms = performance.now();
  // No function inside: tsx would name it with a helper the page does not have.
  const first = rows[0]?.querySelector("td a")?.textContent ?? "";
  const last = rows[rows.length - 1]?.querySelector("td a")?.textContent ?? "";
  const list = (performance.getEntriesByType("resource") as unknown as ListRequestTiming[])
    .filter((entry) => entry.name.includes("/api/v1/agents?"))
    .at(-1);
  return {
    ms,
    first,
    last,
    apiAskedMs: list?.startTime ?? Number.NaN,
    apiMs: list === undefined ? Number.NaN : list.responseEnd - list.startTime,
  };
}

/** The state folder holds the console's build, the dev issuer's key and the agent CA. */
export type ConsoleListOptions = FleetBenchOptions;

export interface CaseResult {
  name: string;
  page: string;
  /** Rows the first page shows, as the API answers it. */
  rows: number;
  /** Navigation start to the rows on screen, one a round. */
  samplesMs: number[];
  p50Ms: number;
  maxMs: number;
  /** Medians of when the page asked the API for the agents (after navigation start), and how long it took. */
  p50ApiAskedMs: number;
  p50ApiMs: number;
}

export interface ConsoleListReport {
  machine: { cpu: string; cores: number; node: string; chromium: string };
  /** Load averages over 1, 5 and 15 minutes, before and after the measured rounds. */
  load: { before: number[]; after: number[] };
  fleet: FleetReport;
  cases: CaseResult[];
  /** Pages that showed other agents than the API's first page for them. */
  mismatches: string[];
}

export async function runConsoleListBench(options: ConsoleListOptions): Promise<ConsoleListReport> {
  const { stateDir, tenant, log } = options;
  const executablePath = chromiumExecutable();
  const written = await writeBenchFleet(options);
  const { fleet } = written;
  const stops: Array<() => Promise<void> | void> = [written.close];
  try {
    const functionLog = openTemporaryFunctionLog();
    stops.push(() => functionLog.close());
    const consoleEnv = benchConsoleEnv(options);
    await ensureDevCertificates(consoleEnv[EnvNames.agentCaDir] as string);
    const consoleApi = await loadConsoleApi(
      { ...consoleEnv, POWERTOOLS_LOG_LEVEL: "ERROR" },
      functionLog.log,
    );
    stops.push(() => consoleApi.shutdown());
    const issuer = await ensureConsoleIssuer(path.join(stateDir, "console-issuer"));
    const gateway = await startConsoleGateway({
      port: 0,
      routes: consoleApi.routes,
      authorizer: await makeJwtAuthorizer(issuer),
    });
    stops.push(() => gateway.close());
    const web = await buildWebConsole(path.join(stateDir, "web"));
    const webServer = await startWebServer({ port: 0, root: web.dir, consoleApiUrl: gateway.url, issuer });
    stops.push(() => webServer.close());
    log(`web console on ${webServer.url}`);

    const browser = await chromium.launch({ executablePath });
    stops.push(() => browser.close());
    const token = await signIn(browser, webServer.url, tenant);
    const expected = new Map<BenchCase, string[]>();
    for (const benchCase of CASES)
      expected.set(benchCase, await firstPageOf(webServer.url, token, benchCase));

    const samples = new Map<BenchCase, Shown[]>(CASES.map((benchCase) => [benchCase, []]));
    const mismatches: string[] = [];
    const loadBefore = loadavg();
    for (let round = 1; round <= options.rounds; round++) {
      let page: Page | undefined;
      for (const benchCase of CASES) {
        if (benchCase.cold || page === undefined) {
          await page?.context().close();
          page = await signedInPage(browser, token);
        }
        const ids = expected.get(benchCase) as string[];
        const shown = await firstPageShown(page, `${webServer.url}${benchCase.page}`, ids.length);
        samples.get(benchCase)?.push(shown);
        if (shown.first !== ids[0] || shown.last !== ids.at(-1)) {
          mismatches.push(
            `${benchCase.name}: showed ${shown.first} … ${shown.last}, the API's first page is ${ids[0]} … ${ids.at(-1)}`,
          );
        }
      }
      await page?.context().close();
      log(`round ${round} of ${options.rounds} measured`);
    }
    const loadAfter = loadavg();
    return {
      machine: {
        cpu: cpus()[0]?.model ?? "unknown CPU",
        cores: cpus().length,
        node: process.version,
        chromium: browser.version(),
      },
      load: { before: loadBefore, after: loadAfter },
      fleet,
      cases: CASES.map((benchCase) => {
        const shown = samples.get(benchCase) as Shown[];
        const measured = shown.map(({ ms }) => ms);
        return {
          name: benchCase.name,
          page: benchCase.page,
          rows: (expected.get(benchCase) as string[]).length,
          samplesMs: measured,
          p50Ms: median(measured),
          maxMs: Math.max(...measured),
          p50ApiAskedMs: median(shown.map(({ apiAskedMs }) => apiAskedMs)),
          p50ApiMs: median(shown.map(({ apiMs }) => apiMs)),
        };
      }),
      mismatches,
    };
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

/** Signs in on the console's own sign-in page, as a viewer of the tenant, and keeps the token it got. */
async function signIn(browser: Browser, webUrl: string, tenant: string): Promise<string> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${webUrl}/agents`);
    await page.getByLabel("Tenant").fill(tenant);
    await page.getByLabel("Role").selectOption("viewer");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("heading", { name: "Agents", level: 1 }).waitFor();
    const token = await page.evaluate(`sessionStorage.getItem(${JSON.stringify(SESSION_TOKEN_KEY)})`);
    if (typeof token !== "string") throw new Error("the console kept no token after signing in");
    return token;
  } finally {
    await context.close();
  }
}

/** A tab of a new browser context, signed in as the tab that signed in is: an empty cache, the token kept. */
async function signedInPage(browser: Browser, token: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(60_000);
  await context.addInitScript({
    content: `sessionStorage.setItem(${JSON.stringify(SESSION_TOKEN_KEY)}, ${JSON.stringify(token)})`,
  });
  return context.newPage();
}

/** The agent ids of the API's first page for the case, which the page must show. */
async function firstPageOf(webUrl: string, token: string, benchCase: BenchCase): Promise<string[]> {
  const response = await fetch(`${webUrl}/api/v1/agents?${benchCase.api()}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (response.status !== 200) throw new Error(`GET /api/v1/agents answered ${response.status}`);
  const { items } = (await response.json()) as { items: { agentId: string }[] };
  if (items.length === 0) throw new Error(`${benchCase.name}: the API lists no agent`);
  return items.map((item) => item.agentId);
}

type Shown = Exclude<ReturnType<typeof rowsShown>, false>;

/** Navigates to the page and waits for its rows; how long after navigation start they were on screen. */
async function firstPageShown(page: Page, url: string, rows: number) {
  await page.goto(url, { waitUntil: "commit" });
  const shown = await page.waitForFunction(rowsShown, rows, { polling: "raf" });
  return (await shown.jsonValue()) as Shown;
}

/** The report as the benchmark prints it: the machine first, as its figures depend on it. */
export function reportLines(report: ConsoleListReport, rounds: number): string[] {
  const { machine, load, fleet } = report;
  const loads = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
  const perSecond = (count: number) => Math.round(count / fleet.seconds).toLocaleString("en");
  const width = Math.max(...report.cases.map((result) => result.name.length));
  const cold = report.cases.find((result) => result.name === COLD_CASE);
  return [
    `machine: ${machine.cores} × ${machine.cpu}, Node ${machine.node}, Chromium ${machine.chromium}`,
    `load average (1, 5, 15 min): ${loads(load.before)} before the rounds, ${loads(load.after)} after`,
    `fleet: ${fleet.agents.toLocaleString("en")} agents in ${Object.keys(fleet.byClass).length} classes ` +
      `(${Object.entries(fleet.byClass)
        .map(([name, count]) => `${name} ${count}`)
        .join(", ")}); ` +
      `${fleet.byPresence.online} heartbeating, ${fleet.byPresence.quiet} quiet for hours, ` +
      `${fleet.byPresence.gone} gone for weeks`,
    `seed: ${fleet.items.toLocaleString("en")} DynamoDB items and ${fleet.hotStates.toLocaleString("en")} ` +
      `agents' hot state in ${fleet.seconds.toFixed(1)} s: ${perSecond(fleet.items)} items/s, ` +
      `${perSecond(fleet.agents)} agents/s`,
    `navigation start to the first page's rows on screen, ${rounds} rounds:`,
    ...report.cases.map(
      (result) =>
        `  ${result.name.padEnd(width)}  ${String(result.rows).padStart(3)} rows  ` +
        `p50 ${result.p50Ms.toFixed(0).padStart(5)} ms  max ${result.maxMs.toFixed(0).padStart(5)} ms  ` +
        `(asked the API at ${result.p50ApiAskedMs.toFixed(0)} ms, its answer took ${result.p50ApiMs.toFixed(0)} ms)`,
    ),
    ...report.mismatches.map((mismatch) => `wrong rows: ${mismatch}`),
    cold === undefined
      ? "budget: not measured"
      : `budget: the cold first page's median ${cold.p50Ms.toFixed(0)} ms, ` +
        `${cold.p50Ms <= FIRST_PAGE_BUDGET_MS ? "within" : "OVER"} ${FIRST_PAGE_BUDGET_MS} ms`,
  ];
}

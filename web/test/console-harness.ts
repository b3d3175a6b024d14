/**
 * What every browser test of the web console stands on: `npm start` on free ports, Debian's Chromium driven
 * by Playwright, a page per test with its uncaught errors and Content-Security-Policy refusals kept, the local
 * sign-in, and `capture`, which checks a page with axe-core and photographs it at a desktop and a phone width
 * into `.beacon/screenshots/web-console/`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { AxeResults } from "axe-core";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";
import { chromiumExecutable } from "../../scripts/local/chromium.js";
import {
  type LocalStack,
  repositoryRoot,
  startLocalStack,
  stopGroup,
} from "../../scripts/test-support/local-stack.js";
import { untilTrue } from "../../scripts/test-support/until.js";
import type { components } from "../src/api/schema.js";

const SCREENSHOTS = path.join(repositoryRoot, ".beacon", "screenshots", "web-console");
export const WIDTHS = [1280, 390] as const;
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export type Role = "viewer" | "operator" | "admin";

/** One running console: the local stack behind it, its address, a browser and an admin's token. */
export interface ConsoleUnderTest {
  stack: LocalStack;
  webUrl: string;
  browser: Browser;
  adminToken: string;
}

let running: ConsoleUnderTest | undefined;
/** The simulated agents the file started, stopped with the console. */
const simulated: ChildProcess[] = [];
/** Uncaught errors and Content-Security-Policy refusals, from every page of the run. */
export const pageProblems: string[] = [];
/** axe-core's findings of every impact, per page, for the report. */
const accessibility: Record<string, { id: string; impact: string | null | undefined; nodes: number }[]> = {};

function current(): ConsoleUnderTest {
  if (running === undefined) throw new Error("startConsole has not run");
  return running;
}

/**
 * Starts `npm start` under `name` with `env` added to its environment, and Chromium. One per test file:
 * every helper below works on it.
 */
export async function startConsole(
  name: string,
  env: Record<string, string> = {},
): Promise<ConsoleUnderTest> {
  const executablePath = chromiumExecutable();
  mkdirSync(SCREENSHOTS, { recursive: true });
  const stack = await startLocalStack(name, { env });
  const webUrl = `http://127.0.0.1:${stack.ports.web}`;
  const browser = await chromium.launch({ executablePath });
  running = { stack, webUrl, browser, adminToken: "" };
  running.adminToken = await localToken("admin");
  return running;
}

/**
 * Stops the simulated agents still running, closes the browser and stops the stack, then prints what axe-core
 * found on each page captured.
 */
export async function stopConsole(): Promise<void> {
  for (const agents of simulated.splice(0)) await stopGroup(agents);
  await running?.browser.close();
  await running?.stack.stop();
  running = undefined;
  const findings = Object.entries(accessibility).map(([page, found]) => {
    const listed = found.map(({ id, impact, nodes }) => `${id} (${impact}, ${nodes} elements)`);
    return `  ${page}: ${listed.length === 0 ? "none" : listed.join(", ")}`;
  });
  console.log(`axe-core findings per page:\n${findings.join("\n")}`);
}

export async function localToken(role: Role): Promise<string> {
  const response = await fetch(`${current().webUrl}/local/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tenant: "dev", role }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

/** The console API as the admin, for a test's set-up and its checks of what the browser did. */
export async function api<T>(route: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const { webUrl, adminToken } = current();
  const response = await fetch(`${webUrl}/api/v1${route}`, {
    ...init,
    headers: { authorization: `Bearer ${adminToken}`, ...init.headers },
  });
  return { status: response.status, body: (await response.json()) as T };
}

/**
 * `npm run agents` with these arguments on the local stack, in a process group of its own for stopGroup (a
 * test may stop them early); stopConsole stops them otherwise.
 */
export function simulatedAgents(args: string[]): ChildProcess {
  const agents = spawn("npm", ["run", "-s", "agents", "--", ...args], {
    cwd: repositoryRoot,
    env: current().stack.env,
    stdio: "ignore",
    detached: true,
  });
  simulated.push(agents);
  return agents;
}

/**
 * Waits until the simulated agents registered: `count` agents of `className` listed, each `ready` when that is
 * given, and each of `others` (of the other classes the file started) known.
 */
export async function untilRegistered(
  className: string,
  count: number,
  options: { others?: string[]; ready?: (agent: components["schemas"]["AgentSummary"]) => boolean } = {},
): Promise<void> {
  const { others = [], ready = () => true } = options;
  await untilTrue(
    `${count} simulated agents of ${className}${others.length === 0 ? "" : ` and ${others.join(", ")}`} to register`,
    async () => {
      const { body } = await api<{ items?: components["schemas"]["AgentSummary"][] }>(
        `/agents?class=${encodeURIComponent(className)}`,
      );
      if (body.items?.length !== count || !body.items.every(ready)) return false;
      const known = await Promise.all(others.map((agentId) => api(`/agents/${agentId}`)));
      return known.every(({ status }) => status === 200);
    },
    120_000,
  );
}

/**
 * Where a real agent reaches the stack's agent API over mutual TLS: the gateway's address, and the folder of
 * `npm start`'s certificates, which holds its CA (`ca.pem`) and the dev tenant's fleet certificate
 * (`dev-fleet.pem`, `dev-fleet.key`), the tenant the console's local sign-in speaks for.
 */
export function agentGateway(): { url: string; certsDir: string; fleetCertificate: string } {
  return {
    url: `https://127.0.0.1:${current().stack.ports.agent}`,
    certsDir: path.join(repositoryRoot, ".beacon", "certs"),
    fleetCertificate: "dev-fleet",
  };
}

/** A certificate issued for the agent (its key generated), once the certificates list by agent holds it: its serial. */
export async function issuedAgentCertificate(agentId: string): Promise<string> {
  const issued = await api<{ serial: string }>("/certificates", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind: "agent", agentId, generateKey: true }),
  });
  expect(issued.status).toBe(201);
  const { serial } = issued.body;
  await untilTrue(
    "the certificate to be in the index by agent",
    async () =>
      (await api<{ items: { serial: string }[] }>(`/certificates?agentId=${agentId}`)).body.items.some(
        (certificate) => certificate.serial === serial,
      ),
    30_000,
  );
  return serial;
}

export async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await current().browser.newContext({ viewport: { width: WIDTHS[0], height: 900 } });
  // npm test runs other suites beside this one on a small machine: a page may take a while to answer.
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  page.on("pageerror", (error) => pageProblems.push(`${page.url()}: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy/i.test(message.text())) {
      pageProblems.push(`${page.url()}: ${message.text()}`);
    }
  });
  return { context, page };
}

/**
 * Signs in on the sign-in page the console shows while nobody is, limited to `classes` when given, and
 * waits for the page it returns to.
 */
export async function signIn(page: Page, role: Role, landing = "Fleet", classes?: string): Promise<void> {
  await page.getByRole("heading", { name: "Beacon console" }).waitFor();
  expect(await page.getByText("Local sign-in.").isVisible()).toBe(true);
  await page.getByLabel("Tenant").fill("dev");
  await page.getByLabel("Role").selectOption(role);
  if (classes !== undefined) await page.getByLabel("Limited to classes (optional)").fill(classes);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("heading", { name: landing, level: 1 }).waitFor();
}

/** A new page signed in as `role`, opened at `at` (the console's path) when given, else where sign-in lands. */
export async function signedIn(role: Role, at?: string): Promise<Page> {
  const { webUrl } = current();
  const { page } = await newPage();
  await page.goto(webUrl);
  await signIn(page, role);
  if (at !== undefined) await page.goto(`${webUrl}${at}`);
  return page;
}

/** axe-core on the page as it stands: no serious or critical violation; every finding is kept. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await page.evaluate(axeSource);
  // Runs in the page, whose globals this Node-side file does not type.
  const results = await page.evaluate(() => {
    const scope = globalThis as unknown as {
      axe: { run(context: unknown): Promise<AxeResults> };
      document: unknown;
    };
    return scope.axe.run(scope.document);
  });
  const violations = results.violations.map(({ id, impact, nodes, help }) => ({
    id,
    impact,
    nodes: nodes.length,
    help,
    where: nodes.slice(0, 3).map((node) => node.target.join(" ")),
  }));
  accessibility[name] = violations.map(({ id, impact, nodes }) => ({ id, impact, nodes }));
  expect(violations.filter(({ impact }) => impact === "serious" || impact === "critical")).toEqual([]);
}

/** The page at a desktop and a phone width, each checked with axe-core and photographed. */
export async function capture(page: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await expectAccessible(page, `${name} at ${width} px`);
    // Wide tables scroll inside their frame; the page itself never scrolls sideways.
    const pageWidth = await page.evaluate(
      () =>
        (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
          .documentElement.scrollWidth,
    );
    expect(pageWidth, `${name} is wider than ${width} px`).toBeLessThanOrEqual(width);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
}

export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A MiNiFi Java flow.json with one processor of the given type and name, spaced as a person writes one. */
export function flowJson(className: string, processorType: string, name = "first"): string {
  const flow = {
    encodingVersion: { majorVersion: 2, minorVersion: 0 },
    maxTimerDrivenThreadCount: 1,
    controllerServices: [],
    rootGroup: {
      identifier: "root",
      name: className,
      processors: [{ identifier: "p1", name, type: processorType }],
      controllerServices: [],
      processGroups: [],
    },
  };
  return `${JSON.stringify(flow, null, 2)}\n`;
}

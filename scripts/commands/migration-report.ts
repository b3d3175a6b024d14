/**
 * Where a tenant's move to Beacon stands, as its console API sees it: `npm run migration-report -- --token T
 * [--url U] [--class C] [--expected FILE] [--json]`. The agents seen and their classes, the flows each class's
 * agents run and whether Beacon holds each (adopted, or a version of its own) or it is still to adopt, and, given
 * the agent ids exported from the incumbent C2 server, which of them have arrived and which have not. See
 * docs/migrating.md.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import createClient from "openapi-fetch";
import type { components, paths } from "../../web/src/api/schema.js";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { localPorts } from "../local/ports.js";

const USAGE = `Usage: npm run migration-report -- --token <console token> [--url <console API>] [--class <class>]
         [--expected <file>] [--json]

Lists the tenant's agents Beacon has seen, their classes and the flows they run, and whether Beacon holds each
flow (adopted or published) or it is still to adopt. The token's tenant is the one reported (viewer role).
  --token     a console API token (npm run token -- --tenant T --role viewer, locally)
  --url       the console API's origin (default http://127.0.0.1:<BEACON_CONSOLE_PORT>, the local stack's)
  --class     report this class only
  --expected  a file of the agent ids expected to arrive, one a line (exported from the incumbent C2 server):
              say which have arrived and which have not
  --json      print the report as JSON`;

type Schemas = components["schemas"];
type AgentSeen = Pick<Schemas["AgentSummary"], "agentId" | "agentClass" | "status" | "flowId">;

/** Whether Beacon holds the flow an agent runs: a version's hash or adopted id, one to adopt, or no flow. */
export type FlowStanding = "held" | "to adopt" | "no flow";

export interface MigrationInput {
  agents: AgentSeen[];
  /** The running flows of every class reported. */
  runningFlows: Schemas["RunningFlows"][];
  /** The agent ids expected, when given. */
  expected?: string[];
}

export interface MigrationReport {
  agents: (AgentSeen & { flow: FlowStanding })[];
  classes: {
    className: string;
    agentCount: number;
    withoutFlow: number;
    /** Agents running a flow Beacon does not hold: what adoption (or a rollout) has yet to cover. */
    toAdopt: number;
    flows: Schemas["RunningFlow"][];
  }[];
  expected?: {
    count: number;
    arrived: string[];
    notArrived: string[];
    /** Agents seen that the list does not name. */
    unexpected: string[];
  };
}

const byId = (a: string, b: string) => a.localeCompare(b);

/** The report of what the console API answered: pure, so that tests read exactly what the command prints. */
export function migrationReport(input: MigrationInput): MigrationReport {
  const held = new Map<string, Set<string>>();
  for (const { className, flows } of input.runningFlows)
    held.set(className, new Set(flows.filter((flow) => flow.flowHash).map((flow) => flow.flowId)));
  const agents = [...input.agents]
    .sort((a, b) => byId(a.agentId, b.agentId))
    .map((agent) => {
      const flow: FlowStanding = !agent.flowId
        ? "no flow"
        : held.get(agent.agentClass)?.has(agent.flowId)
          ? "held"
          : "to adopt";
      return { ...agent, flow };
    });
  const classes = [...input.runningFlows]
    .sort((a, b) => byId(a.className, b.className))
    .map(({ className, agentCount, withoutFlow, flows }) => ({
      className,
      agentCount,
      withoutFlow,
      toAdopt: flows.filter((flow) => !flow.flowHash).reduce((sum, flow) => sum + flow.agentCount, 0),
      flows,
    }));
  if (input.expected === undefined) return { agents, classes };
  const expected = new Set(input.expected);
  const seen = new Set(agents.map((agent) => agent.agentId));
  return {
    agents,
    classes,
    expected: {
      count: expected.size,
      arrived: [...expected].filter((id) => seen.has(id)).sort(byId),
      notArrived: [...expected].filter((id) => !seen.has(id)).sort(byId),
      unexpected: [...seen].filter((id) => !expected.has(id)).sort(byId),
    },
  };
}

/** The agent ids of an export: one a line, blank lines and `#` comments left out. */
export function expectedAgentIds(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

/** Rows as columns padded to their widest cell, two spaces apart. */
function columns(rows: string[][]): string[] {
  const widths = (rows[0] ?? []).map((_, index) => Math.max(...rows.map((row) => (row[index] ?? "").length)));
  return rows.map((row) =>
    row
      .map((cell, index) => cell.padEnd(widths[index] ?? 0))
      .join("  ")
      .trimEnd(),
  );
}

const shortHash = (hash: string | undefined) => (hash ? hash.slice(0, 12) : "-");

/** The report as the command prints it. */
export function reportText(report: MigrationReport): string {
  const online = report.agents.filter((agent) => agent.status === "online").length;
  const lines = [
    `Agents seen: ${report.agents.length} (${online} online)`,
    ...columns([
      ["agent", "class", "status", "flow id", "flow"],
      ...report.agents.map((agent) => [
        agent.agentId,
        agent.agentClass,
        agent.status,
        agent.flowId ?? "-",
        agent.flow,
      ]),
    ]),
    "",
    "Flows by class",
    ...columns([
      ["class", "flow id", "agents", "held by Beacon as"],
      ...report.classes.flatMap((each) => [
        ...each.flows.map((flow) => [
          each.className,
          flow.flowId,
          `${flow.agentCount}`,
          flow.flowHash ? shortHash(flow.flowHash) : "to adopt",
        ]),
        ...(each.withoutFlow > 0 ? [[each.className, "(none reported)", `${each.withoutFlow}`, "-"]] : []),
      ]),
    ]),
    ...report.classes.map((each) =>
      each.toAdopt === 0
        ? `${each.className}: every flow its agents run is held by Beacon`
        : `${each.className}: ${each.toAdopt} of ${each.agentCount} agents run a flow still to adopt`,
    ),
  ];
  const { expected } = report;
  if (expected) {
    lines.push(
      "",
      `Expected agents: ${expected.count}; arrived ${expected.arrived.length}, not arrived ${expected.notArrived.length}`,
      ...expected.notArrived.map((id) => `  not arrived: ${id}`),
      ...(expected.unexpected.length > 0 ? [`Seen but not expected: ${expected.unexpected.join(", ")}`] : []),
    );
  }
  return lines.join("\n");
}

type ConsoleClient = ReturnType<typeof createClient<paths>>;

/** The reply's data, or an error naming the route and what the API answered. */
async function dataOf<T>(
  route: string,
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await request;
  if (response.ok && data !== undefined) return data;
  throw new Error(`GET ${route} answered ${response.status}: ${JSON.stringify(error)}`);
}

/** Every page of a listing, following `nextCursor`. */
async function allPages<T>(page: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string }>) {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const reply = await page(cursor);
    items.push(...reply.items);
    cursor = reply.nextCursor;
  } while (cursor !== undefined);
  return items;
}

async function readConsole(client: ConsoleClient, className: string | undefined): Promise<MigrationInput> {
  const agents = await allPages((cursor) =>
    dataOf(
      "/api/v1/agents",
      client.GET("/api/v1/agents", {
        params: {
          query: { limit: 100, ...(className ? { class: className } : {}), ...(cursor ? { cursor } : {}) },
        },
      }),
    ),
  );
  const classNames = className
    ? [className]
    : (
        await allPages((cursor) =>
          dataOf(
            "/api/v1/classes",
            client.GET("/api/v1/classes", { params: { query: cursor ? { cursor } : {} } }),
          ),
        )
      ).map((each) => each.name);
  const runningFlows = await Promise.all(
    classNames.map((name) =>
      dataOf(
        `/api/v1/classes/${name}/running-flows`,
        client.GET("/api/v1/classes/{className}/running-flows", { params: { path: { className: name } } }),
      ),
    ),
  );
  return { agents, runningFlows };
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(USAGE, {
    options: {
      token: { type: "string" },
      url: { type: "string" },
      class: { type: "string" },
      expected: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  if (!values.token) exitWithUsage(USAGE, "--token is required");
  const token = values.token;
  const client = createClient<paths>({
    baseUrl: values.url ?? `http://127.0.0.1:${localPorts(process.env).console}`,
  });
  client.use({
    onRequest({ request }) {
      request.headers.set("authorization", `Bearer ${token}`);
      return request;
    },
  });
  const expected =
    values.expected === undefined ? undefined : expectedAgentIds(await readFile(values.expected, "utf8"));
  const report = migrationReport({ ...(await readConsole(client, values.class)), expected });
  console.log(values.json ? JSON.stringify(report, null, 2) : reportText(report));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}

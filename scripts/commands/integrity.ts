/**
 * The archive's integrity report: `npm run integrity -- --tenant T [--from ISO --to ISO] [--agent A] [--json]
 * [--bucket B]`. Per agent, the heartbeat events the sequence says the archive should hold, those it holds,
 * those lost and those held more than once; exits 1 when any is lost. It reads the bucket `--bucket` names, or
 * BEACON_ARCHIVE_BUCKET's, through the S3 the environment points at (AWS, or AWS_ENDPOINT_URL_S3); with
 * neither, the local stack's that `npm start` runs.
 */
import { S3EventArchiveReader } from "../../functions/adapters/s3/event-archive-reader.js";
import { s3ObjectCalls } from "../../functions/adapters/s3/object-calls.js";
import {
  type AgentIntegrity,
  archiveIntegrity,
  type IntegrityReport,
} from "../../functions/core/archive/integrity.js";
import { makeS3Client } from "../../functions/runtime/aws-clients/s3.js";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { LocalStackNames, localAwsEnv } from "../local/backends.js";
import { localPorts } from "../local/ports.js";

const USAGE = `Usage: npm run integrity -- --tenant <tenant> [--from <ISO time> --to <ISO time>] [--agent <agent-id>] [--json] [--bucket <bucket>]

  --tenant  the tenant whose archive is read
  --from    count heartbeats recorded at or after this time (with --to; without both, the whole archive)
  --to      count heartbeats recorded before this time
  --agent   count this agent's heartbeats only
  --json    print the report as JSON
  --bucket  the archive's bucket (default: BEACON_ARCHIVE_BUCKET, else the local stack's)`;

const COLUMNS = ["expected", "received", "lost", "duplicated", "unsequenced", "runs"] as const;

function timeOf(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time)) exitWithUsage(USAGE, `--${option} is no ISO time: ${value}`);
  return time;
}

/** Where the archive is: the bucket named and the environment's S3, else the local stack's. */
function archiveOf(bucket: string | undefined, env: NodeJS.ProcessEnv) {
  const named = bucket ?? env[EnvNames.archiveBucket];
  if (named) return { bucket: named, env };
  const localEnv = {
    ...localAwsEnv,
    [AwsEndpointEnvNames.s3]: env[AwsEndpointEnvNames.s3] || `http://127.0.0.1:${localPorts(env).s3}`,
  };
  return { bucket: LocalStackNames.archiveBucket, env: localEnv };
}

function table(report: IntegrityReport): string {
  const rows: string[][] = [
    ["agent", ...COLUMNS],
    ...report.agents.map((agent: AgentIntegrity) => [
      agent.agentId,
      ...COLUMNS.map((name) => `${agent[name]}`),
    ]),
    ["total", ...COLUMNS.map((name) => `${report.totals[name]}`)],
  ];
  const widths = rows[0]?.map((_, index) => Math.max(...rows.map((row) => (row[index] ?? "").length))) ?? [];
  const lines = rows.map((row) =>
    row
      .map((cell, index) => (index === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[index] ?? 0)))
      .join("  "),
  );
  const gaps = report.agents.flatMap((agent) =>
    agent.gaps.map((gap) => `lost: ${agent.agentId} run ${gap.run}, sequence ${gap.first}..${gap.last}`),
  );
  return [...lines, ...gaps].join("\n");
}

async function main(): Promise<number> {
  const { values } = parseCommandLine(USAGE, {
    options: {
      tenant: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      agent: { type: "string" },
      bucket: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  if (!values.tenant) exitWithUsage(USAGE, "--tenant is required");
  if ((values.from === undefined) !== (values.to === undefined))
    exitWithUsage(USAGE, "give --from and --to together");
  const scope = { from: timeOf(values.from, "from"), to: timeOf(values.to, "to"), agentId: values.agent };
  const archive = archiveOf(values.bucket, process.env);
  const s3 = makeS3Client(archive.env);
  try {
    const report = await archiveIntegrity(
      new S3EventArchiveReader(s3ObjectCalls(s3, archive.bucket)),
      values.tenant,
      scope,
    );
    console.log(values.json ? JSON.stringify(report, null, 2) : table(report));
    return report.totals.lost > 0 ? 1 : 0;
  } finally {
    s3.destroy();
  }
}

process.exitCode = await main();

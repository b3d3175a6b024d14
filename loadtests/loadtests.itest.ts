/**
 * The scenarios really work: each runs for a few seconds, at a few agents, in an Artillery child
 * process against the agent API in this process (on the integration backends), and its report and
 * Beacon's table show what the scenario promises.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DynamoDBDocumentClient, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Keys } from "../functions/adapters/dynamodb/keys.js";
import { makeDynamoDbClient } from "../functions/shared/aws-clients.js";
import { type AgentApiUnderTest, startAgentApi } from "../test-support/agent-api-harness.js";
import { runScenario, type ScenarioName, summarise } from "./run-scenario.js";

let api: AgentApiUnderTest;
let reportDir: string;

beforeAll(async () => {
  api = await startAgentApi();
  reportDir = mkdtempSync(path.join(tmpdir(), "beacon-loadtests-"));
});

afterAll(async () => {
  await api?.close();
  if (reportDir) rmSync(reportDir, { recursive: true, force: true });
});

async function run(scenario: ScenarioName, variables: Record<string, number>) {
  // A tenant of the run's own, so that what the run stored is all that its tenant has.
  const tenant = `lt-${randomUUID().slice(0, 8)}`;
  const certificate = await api.issueCertificate({ tenant, fleet: true });
  const result = await runScenario({
    scenario,
    target: api.url,
    certsDir: api.certsDir,
    certificate,
    reportPath: path.join(reportDir, `${scenario}.json`),
    variables,
    output: "collect",
  });
  const summary = summarise(result.report);
  // What every scenario promises: all agents done, every request answered 200, no hook assertion failed.
  expect(summary.requests).toBeGreaterThan(0);
  expect(summary.errors, result.output).toEqual({});
  expect(summary.codes).toEqual({ "200": summary.requests });
  expect(summary.vusersCreated).toBe(variables.agents);
  expect(summary.vusersFailed).toBe(0);
  return { summary, variables: result.variables, tenant };
}

describe("fleet-steady", () => {
  it("registers every agent and keeps it heartbeating", async () => {
    const agents = 6;
    const heartbeats = 3;
    const { summary } = await run("fleet-steady", {
      agents,
      rampSeconds: 1,
      heartbeatSeconds: 1,
      heartbeats,
      javaShare: 0.5,
      gzipShare: 0.5,
    });
    const { beacon } = summary;
    expect((beacon["heartbeats.cpp"] ?? 0) + (beacon["heartbeats.java"] ?? 0)).toBe(agents * heartbeats);
    // Every C++ agent registers with its manifest inline, once.
    expect(beacon["heartbeats.with_manifest"] ?? 0).toBe(beacon["agents.cpp"] ?? 0);
    expect(beacon["describe_manifest.acknowledged"] ?? 0).toBe(beacon["describe_manifest.received"] ?? 0);
  }, 60_000);
});

describe("manifest-herd", () => {
  it("asks every agent of the herd exactly once and stores the manifest once", async () => {
    const agents = 8;
    // The herd arrives within a second; its acks come a heartbeat later, well after everyone was asked.
    const { summary, variables, tenant } = await run("manifest-herd", {
      agents,
      arrivalSeconds: 1,
      heartbeatSeconds: 3,
      heartbeats: 2,
      javaShare: 1,
      gzipShare: 0.5,
    });
    // A second DESCRIBE for an agent fails its virtual user, which the checks in run() catch.
    expect(summary.beacon["describe_manifest.received"]).toBe(agents);
    expect(summary.beacon["describe_manifest.acknowledged"]).toBe(agents);

    const documents = DynamoDBDocumentClient.from(makeDynamoDbClient(api.env));
    // Every manifest of the tenant: the herd's, once, and nothing else.
    const { pk, sk } = Keys.manifest(tenant, variables.javaManifestHash as string);
    const { Items = [] } = await documents.send(
      new QueryCommand({
        TableName: api.env.BEACON_TABLE_NAME,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": pk },
        ProjectionExpression: "sk",
      }),
    );
    expect(Items).toEqual([{ sk }]);
  }, 60_000);
});

/**
 * What a scrape of the fleet's metrics asks DynamoDB, through a counting proxy in front of the console API's
 * endpoint: the class list and the classes' last minute of fleet history, the same whatever the number of agents.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type CountingProxy, startCountingProxy } from "../../scripts/local/counting-proxy.js";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { heartbeat } from "../../scripts/test-support/console-seed.js";
import { AwsEndpointEnvNames } from "../shared/env-names.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let dynamoDb: CountingProxy;
const tenant = `mc-${randomUUID().slice(0, 6)}`;
const classes = ["pumps", "valves", "gauges"];
let certificate: string;

async function register(count: number, from: number): Promise<void> {
  for (let n = from; n < from + count; n++) {
    const agentClass = classes[n % classes.length] as string;
    expect(
      await heartbeat(agentApi, certificate, `${tenant}-agent-${n}`, agentClass, `${tenant}-manifest`),
    ).toBe(200);
  }
}

async function scrape(): Promise<{ text: string; dynamoDbRequests: Record<string, number> }> {
  const token = await consoleApi.token({ tenant, role: "viewer" });
  dynamoDb.reset();
  const response = await consoleApi.request("GET", "/api/v1/fleet/metrics", { token });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe(
    "application/openmetrics-text; version=1.0.0; charset=utf-8",
  );
  return { text: response.body, dynamoDbRequests: dynamoDb.counts() };
}

const onlineOf = (text: string) =>
  Object.fromEntries(
    [...text.matchAll(/^beacon_agents\{class="([^"]+)",status="online"\} (\d+)$/gm)].map(
      ([, name, value]) => [name, Number(value)],
    ),
  );

beforeAll(async () => {
  agentApi = await startAgentApi();
  dynamoDb = await startCountingProxy(inject("beaconEnv")[AwsEndpointEnvNames.dynamodb] as string);
  consoleApi = await startConsoleApi(agentApi, { [AwsEndpointEnvNames.dynamodb]: dynamoDb.url });
  certificate = await agentApi.issueCertificate({ tenant, fleet: true });
}, 120_000);

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
  await dynamoDb?.close();
});

describe("a scrape of the fleet's metrics", () => {
  it("costs one DynamoDB query, the class list, and one BatchGetItem, their history's last minute, with 3 agents as with 30", async () => {
    await register(3, 0);
    const few = await scrape();
    expect(onlineOf(few.text)).toEqual({ gauges: 1, pumps: 1, valves: 1 });
    expect(few.dynamoDbRequests).toEqual({
      "DynamoDB_20120810.Query": 1,
      "DynamoDB_20120810.BatchGetItem": 1,
    });

    await register(27, 3);
    const many = await scrape();
    expect(onlineOf(many.text)).toEqual({ gauges: 10, pumps: 10, valves: 10 });
    expect(many.dynamoDbRequests).toEqual(few.dynamoDbRequests);
  });
});

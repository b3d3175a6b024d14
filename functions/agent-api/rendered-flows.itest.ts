/**
 * Agents download their flow rendered with their own parameter values through the local gateway, over mutual TLS:
 * the class's values under the agent's own, a sensitive parameter's secret read from Secrets Manager (moto) by
 * reference; an agent certificate asking for another agent's flow and another tenant's fleet certificate are
 * refused. Then the secret's value is looked for everywhere Beacon keeps anything, and is nowhere.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { GetObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { PutParameterCommand } from "@aws-sdk/client-ssm";
import { ScanCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentApiUnderTest, startAgentApi } from "../../scripts/test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../../scripts/test-support/console-api-harness.js";
import { heartbeat, heartbeatOf } from "../../scripts/test-support/console-seed.js";
import { javaParameterFlow, parameterValuesIn } from "../../scripts/test-support/flow-fixtures.js";
import { createTenantSecret } from "../../scripts/test-support/secrets.js";
import { readWholeStream } from "../../scripts/test-support/stream-reader.js";
import { Keys } from "../adapters/dynamodb/keys.js";
import { CacheKeys } from "../adapters/redis/cache-keys.js";
import { AgentRoutes, agentFlowContentUrl } from "../core/c2/routes.js";
import { makeDocumentClient } from "../runtime/aws-clients/dynamodb.js";
import { makeKinesisClient } from "../runtime/aws-clients/kinesis.js";
import { makeS3Client } from "../runtime/aws-clients/s3.js";
import { makeSsmClient } from "../runtime/aws-clients/ssm.js";
import { EnvNames } from "../shared/env-names.js";

let agentApi: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
let tenant: string;
let operator: string;
let fleet: string;
let flowHash: string;
/** The secrets' values: random, so that finding one anywhere can only mean it leaked there. */
const kafkaPassword = `pw-${randomUUID()}`;
const s3Secret = `ssm-${randomUUID()}`;

const flowPath = (agentId: string) => new URL(agentFlowContentUrl(agentApi.url, agentId, flowHash)).pathname;

async function setValue(path: string, body: unknown) {
  const response = await consoleApi.request("PUT", `/api/v1/${path}`, { token: operator, body });
  expect(response.status, response.body).toBe(201);
}

beforeAll(async () => {
  agentApi = await startAgentApi();
  consoleApi = await startConsoleApi(agentApi);
  tenant = `render-${randomUUID().slice(0, 8)}`;
  operator = await consoleApi.token({ tenant, role: "operator" });
  fleet = await agentApi.issueCertificate({ tenant, fleet: true });
  for (const agentId of ["pump-1", "pump-2"])
    expect(
      await heartbeat(agentApi, fleet, agentId, "pumps", `${tenant}-java`, {
        operations: [{ type: "UPDATE", properties: { CONFIGURATION: {} } }],
      }),
    ).toBe(200);
  const secretArn = await createTenantSecret(agentApi.env, tenant, "kafka", { password: kafkaPassword });
  const ssm = makeSsmClient(agentApi.env);
  await ssm.send(
    new PutParameterCommand({ Name: `/beacon/${tenant}/s3-prefix`, Value: s3Secret, Type: "SecureString" }),
  );
  ssm.destroy();

  await setValue("classes/pumps/parameters/kafka.brokers", { value: "broker-a.plant:9092" });
  await setValue("classes/pumps/parameters/kafka.password", {
    secretRef: `${secretArn}:SecretString:password`,
  });
  await setValue("agents/pump-1/parameters/site.id", { value: "site-17" });
  await setValue("agents/pump-1/parameters/s3.prefix", { secretRef: `ssm:/beacon/${tenant}/s3-prefix` });
  // Published once its agents have every value it needs (kafka.password has no value of the flow's own).
  const upload = await consoleApi.request("POST", "/api/v1/classes/pumps/flows", {
    token: operator,
    body: javaParameterFlow,
  });
  expect(upload.status, upload.body).toBe(201);
  flowHash = upload.json().hash as string;
});

afterAll(async () => {
  await consoleApi?.close();
  await agentApi?.close();
});

describe("an agent's rendered flow", () => {
  it("carries the class's values, the agent's own over them, and secrets read by reference", async () => {
    const started = performance.now();
    const first = await agentApi.get(flowPath("pump-1"), { certificate: fleet });
    const elapsedMs = performance.now() - started;
    expect(first.status, first.body).toBe(200);
    expect(first.headers["content-type"]).toBe("application/json");
    expect(parameterValuesIn(first.body)).toEqual({
      common: { "site.id": "site-17", "kafka.password": kafkaPassword },
      pumps: { "kafka.brokers": "broker-a.plant:9092", compression: "gzip" },
      archive: { "s3.prefix": s3Secret },
    });
    console.info(`one rendered flow download through the local gateway: ${elapsedMs.toFixed(0)} ms`);

    const own = await agentApi.issueCertificate({ tenant, agentId: "pump-2" });
    const second = await agentApi.get(flowPath("pump-2"), { certificate: own });
    expect(second.status, second.body).toBe(200);
    expect(parameterValuesIn(second.body)).toEqual({
      common: { "site.id": "site-0", "kafka.password": kafkaPassword },
      pumps: { "kafka.brokers": "broker-a.plant:9092", compression: "gzip" },
      archive: { "s3.prefix": "pumps/" },
    });
    const unchanged = await agentApi.get(flowPath("pump-2"), {
      certificate: own,
      headers: { "if-none-match": second.headers.etag as string },
    });
    expect(unchanged.status).toBe(304);
  });

  it("goes by the flow id of the agent's own rendering, which a value change moves for exactly the agents it reaches", async () => {
    // The version becomes the class's target, as the rollout store writes it; the cache's copy is dropped as its
    // expiry would drop it.
    const documents = makeDocumentClient(agentApi.env);
    await documents.send(
      new UpdateCommand({
        TableName: agentApi.env[EnvNames.tableName],
        Key: Keys.agentClass(tenant, "pumps"),
        UpdateExpression: "SET flowPolicy = :policy",
        ExpressionAttributeValues: { ":policy": { target: flowHash, accepted: [flowHash] } },
      }),
    );
    const cache = new Redis(agentApi.env[EnvNames.redisUrl] as string);
    await cache.del(CacheKeys.classFlow(tenant, "pumps"));
    await cache.quit();
    /** The flow id each catch-up sends on the agents' heartbeats, each reporting the flow id it runs. */
    const running = new Map<string, string>();
    const catchUps = async () => {
      const sent = new Map<string, string>();
      for (const agentId of ["pump-1", "pump-2"]) {
        const response = await agentApi.post(
          AgentRoutes.heartbeat.path,
          heartbeatOf(agentId, "pumps", `${tenant}-java`, { flowId: running.get(agentId) }),
          { certificate: fleet },
        );
        expect(response.status).toBe(200);
        for (const operation of response.json().requestedOperations as { args: Record<string, string> }[]) {
          expect(operation.args.location).toBe(`${agentApi.url}${flowPath(agentId)}`);
          sent.set(agentId, operation.args.flowId as string);
          running.set(agentId, operation.args.flowId as string);
        }
      }
      return sent;
    };
    // pump-1's heartbeat loads the class's policy; from then on each claims its catch-up.
    const loading = await catchUps();
    const first = new Map([...loading, ...(await catchUps())]);
    expect([...first.keys()].sort()).toEqual(["pump-1", "pump-2"]);
    expect(first.get("pump-1")).not.toBe(first.get("pump-2"));
    expect((await catchUps()).size).toBe(0);

    // pump-1 sets its own site.id: the class's value reaches pump-2 alone.
    const siteId = await consoleApi.request("PUT", "/api/v1/classes/pumps/parameters/site.id", {
      token: operator,
      body: { value: "site-0b" },
    });
    expect(siteId.status, siteId.body).toBe(201);
    expect([...(await catchUps()).keys()]).toEqual(["pump-2"]);
    // A value both take reaches both; one of pump-1's own, pump-1 alone.
    await setValue("classes/pumps/parameters/compression", { value: "snappy" });
    expect([...(await catchUps()).keys()]).toEqual(["pump-1", "pump-2"]);
    const own = await consoleApi.request("PUT", "/api/v1/agents/pump-1/parameters/site.id", {
      token: operator,
      body: { value: "site-18" },
    });
    expect(own.status, own.body).toBe(200);
    expect([...(await catchUps()).keys()]).toEqual(["pump-1"]);
    expect((await catchUps()).size).toBe(0);
  });

  it("is refused to an agent certificate of another agent and to another tenant's fleet certificate", async () => {
    const other = await agentApi.issueCertificate({ tenant, agentId: "pump-2" });
    const mismatch = await agentApi.get(flowPath("pump-1"), { certificate: other });
    expect(mismatch.status).toBe(403);
    expect(mismatch.json()).toMatchObject({ error: { code: "identity_mismatch" } });
    const otherFleet = await agentApi.issueCertificate({ tenant: `${tenant}-other`, fleet: true });
    const elsewhere = await agentApi.get(flowPath("pump-1"), { certificate: otherFleet });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).not.toContain(kafkaPassword);
  });

  it("names a parameter left without its secret, and answers no flow", async () => {
    await setValue("agents/pump-2/parameters/kafka.password", { secretRef: `ssm:/beacon/${tenant}/absent` });
    const refused = await agentApi.get(flowPath("pump-2"), { certificate: fleet });
    expect(refused.status).toBe(502);
    expect(refused.json()).toMatchObject({
      error: { code: "secret_unavailable", details: { parameter: "kafka.password" } },
    });
  });

  it("leaves the secrets nowhere Beacon keeps anything: the table, the stream, the archive, the audit trail, the logs", async () => {
    const env = agentApi.env;
    const documents = makeDocumentClient(env);
    const kept: string[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await documents.send(
        new ScanCommand({ TableName: env[EnvNames.tableName], ExclusiveStartKey: startKey }),
      );
      kept.push(JSON.stringify(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    documents.destroy();
    kept.push(
      JSON.stringify(await readWholeStream(makeKinesisClient(env), env[EnvNames.streamName] as string)),
    );
    const s3 = makeS3Client(env);
    for (const bucket of [env[EnvNames.archiveBucket], env[EnvNames.assetBucket]]) {
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
      for (const object of listed.Contents ?? [])
        if (object.Key?.includes(tenant)) {
          const read = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: object.Key }));
          kept.push(Buffer.from((await read.Body?.transformToByteArray()) ?? []).toString("latin1"));
        }
    }
    s3.destroy();
    const admin = await consoleApi.token({ tenant, role: "admin" });
    const audit = await consoleApi.request("GET", "/api/v1/audit", { token: admin });
    expect(audit.status, audit.body).toBe(200);
    kept.push(audit.body);
    kept.push(readFileSync(agentApi.functionLog, "utf8"), readFileSync(consoleApi.functionLog, "utf8"));
    const everything = kept.join("\n");
    expect(everything).toContain(tenant);
    for (const secret of [kafkaPassword, s3Secret]) expect(everything).not.toContain(secret);
  });
});

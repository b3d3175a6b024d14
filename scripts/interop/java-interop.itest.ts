/**
 * Interop with the real Apache NiFi MiNiFi Java C2 client (org.apache.nifi:c2-client-http 2.3.0): the
 * library's own HTTP client, heartbeat factory and DESCRIBE MANIFEST handler talk to the real agent-api
 * handler behind the real mutual-TLS gateway, plain and with the library's gzip request compression.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoManifestStore } from "../../functions/adapters/dynamodb/manifest-store.js";
import { makeDynamoDbClient } from "../../functions/shared/aws-clients.js";
import { type AgentApiUnderTest, startAgentApi } from "../local/agent-api-harness.js";
import {
  type AckStep,
  buildJavaDriver,
  type Compression,
  type DriverStep,
  type HeartbeatStep,
  runJavaDriver,
} from "./java-client.js";

/** A cold build resolves the library and Maven's plugins into ~/.m2 first. */
const BUILD_TIMEOUT_MS = 11 * 60_000;

let api: AgentApiUnderTest;
let tenant: string;
let manifests: DynamoManifestStore;

beforeAll(async () => {
  await buildJavaDriver();
  api = await startAgentApi();
  tenant = `t-${randomUUID().slice(0, 8)}`;
  const documents = DynamoDBDocumentClient.from(makeDynamoDbClient(api.env));
  manifests = new DynamoManifestStore(documents, api.env.BEACON_TABLE_NAME as string);
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await api?.close();
});

function heartbeats(steps: DriverStep[]): HeartbeatStep[] {
  return steps.filter((step): step is HeartbeatStep => step.step === "heartbeat");
}

function acks(steps: DriverStep[]): AckStep[] {
  return steps.filter((step): step is AckStep => step.step === "ack");
}

describe.each<{ compression: Compression; agentId: string }>([
  { compression: "none", agentId: "java-plain" },
  { compression: "gzip", agentId: "java-gzip" },
])("the NiFi 2.3.0 Java C2 client with compression $compression", ({ compression, agentId }) => {
  it("is asked DESCRIBE MANIFEST, acknowledges with the manifest, then gets no operation", async () => {
    const certificate = await api.issueCertificate({ tenant, agentId });
    // Lower-case hex SHA-512 shape, as the Java agent computes it; fresh, so Beacon cannot know it yet.
    const manifestHash = randomBytes(64).toString("hex");

    const steps = await runJavaDriver({
      url: api.url,
      certsDir: api.certsDir,
      certificate,
      agentId,
      agentClass: "interop-java",
      manifestHash,
      compression,
    });

    expect(steps[0]).toMatchObject({ step: "client", library: "org.apache.nifi:c2-client-http:2.3.0" });
    const [first, second] = heartbeats(steps);
    const [ack] = acks(steps);

    // The library really sent what a Java agent sends: gzip bodies go chunked, with no Content-Length.
    const sentAs =
      compression === "gzip"
        ? { contentEncoding: "gzip", transferEncoding: "chunked", contentLength: null }
        : { contentEncoding: null, transferEncoding: null };
    for (const exchange of [first?.http, ack?.http, second?.http]) expect(exchange).toMatchObject(sentAs);

    expect(first).toMatchObject({
      agentId,
      agentManifestHash: manifestHash,
      manifestSent: false,
      parsed: true,
    });
    expect(first?.http.status).toBe(200);
    expect(first?.operations).toHaveLength(1);
    const [describeManifest] = first?.operations ?? [];
    expect(describeManifest).toMatchObject({ operation: "DESCRIBE", operand: "MANIFEST" });
    expect(describeManifest?.identifier).toEqual(expect.any(String));

    expect(acks(steps)).toHaveLength(1);
    expect(ack).toMatchObject({
      operationId: describeManifest?.identifier,
      operation: "DESCRIBE",
      operand: "MANIFEST",
      state: "FULLY_APPLIED",
      agentManifestHash: manifestHash,
      manifest: {
        agentType: "minifi-java",
        supportedOperations: [{ type: "DESCRIBE", operands: ["MANIFEST"] }],
      },
    });
    expect(ack?.http.status).toBe(200);

    expect(second).toMatchObject({ agentId, parsed: true, operations: [] });
    expect(second?.http.status).toBe(200);

    // An empty second reply alone could mean a DESCRIBE still pending; the stored manifest shows the ack landed.
    const stored = JSON.parse((await manifests.read(tenant, manifestHash)) ?? "null");
    expect(stored).toMatchObject({
      agentType: "minifi-java",
      bundles: [
        {
          artifact: "nifi-standard-nar",
          componentManifest: {
            processors: [{ type: "org.apache.nifi.processors.standard.GenerateFlowFile" }],
          },
        },
      ],
      supportedOperations: [{ type: "DESCRIBE", properties: { MANIFEST: {} } }],
    });
  });
});

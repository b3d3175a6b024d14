import { PutRecordsCommand } from "@aws-sdk/client-kinesis";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { describe, expect, it } from "vitest";
import { localService } from "../../../scripts/test-support/local-service.js";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import { makeKinesisClient } from "./kinesis.js";

/** Answers every request as Kinesis answers a PutRecords that took every record, counting connections. */
const kinesis = localService((_request, _body, response) => {
  response.setHeader("content-type", "application/x-amz-json-1.1");
  response.end(JSON.stringify({ FailedRecordCount: 0, Records: [{ SequenceNumber: "1", ShardId: "s-0" }] }));
});
let connections = 0;
kinesis.server.on("connection", () => connections++);

const put = { StreamName: "events", Records: [{ Data: Buffer.from("{}"), PartitionKey: "acme/a" }] };

describe("the Kinesis client", () => {
  it("puts records one after another over one kept-alive connection", async () => {
    const client = makeKinesisClient({
      [AwsEndpointEnvNames.kinesis]: kinesis.url(),
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "local",
      AWS_SECRET_ACCESS_KEY: "local",
    });
    for (let index = 0; index < 5; index++) await client.send(new PutRecordsCommand(put));
    expect(connections).toBe(1);
    client.destroy();
  });

  it("talks to the endpoint its environment named when it was declared, though made at its first use", async () => {
    const environment: Record<string, string> = {
      [AwsEndpointEnvNames.kinesis]: kinesis.url(),
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "local",
      AWS_SECRET_ACCESS_KEY: "local",
    };
    const client = makeKinesisClient(environment);
    // As local tooling does when it loads another function into the same process with an environment of its own.
    environment[AwsEndpointEnvNames.kinesis] = "http://127.0.0.1:9";
    const before = connections;
    await client.send(new PutRecordsCommand(put));
    expect(connections).toBe(before + 1);
    client.destroy();
  });

  it("speaks HTTP/1.1 on AWS too, where the SDK's HTTP/2 default opened a session for every put", () => {
    const client = makeKinesisClient({ AWS_REGION: "us-east-1" });
    expect(client.config.requestHandler).toBeInstanceOf(NodeHttpHandler);
    client.destroy();
  });
});

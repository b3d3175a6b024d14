import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { KinesisClient } from "@aws-sdk/client-kinesis";
import { describe, expect, it } from "vitest";
import { type PostToSign, type SigningCredentials, signedPostHeaders } from "./signature-v4.js";

/** The signature the SDK's own signer gives the same POST at the same time: the reference. */
async function sdkSigned(
  post: PostToSign,
  credentials: SigningCredentials,
  region: string,
  at: Date,
  service: "kinesis" | "dynamodb" = "kinesis",
): Promise<Record<string, string>> {
  const client =
    service === "kinesis"
      ? new KinesisClient({ region, credentials })
      : new DynamoDBClient({ region, credentials });
  try {
    const signer = await client.config.signer();
    const [hostname, port] = post.host.split(":");
    const signed = await signer.sign(
      {
        method: "POST",
        protocol: "https:",
        hostname: hostname ?? "",
        port: port ? Number(port) : undefined,
        path: post.path,
        query: {},
        headers: { ...post.headers, host: post.host },
        body: post.body,
      },
      { signingDate: at },
    );
    return (signed as { headers: Record<string, string> }).headers;
  } finally {
    client.destroy();
  }
}

const putRecords: PostToSign = {
  host: "kinesis.eu-west-1.amazonaws.com",
  path: "/",
  headers: {
    "content-type": "application/x-amz-json-1.1",
    "content-length": "61",
    "x-amz-target": "Kinesis_20131202.PutRecords",
  },
  body: '{"StreamName":"beacon-events","Records":[{"Data":"e30=","PartitionKey":"a"}]}',
};
const keys: SigningCredentials = {
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
};

describe("a POST signed by Signature Version 4", () => {
  it.each([
    ["long-term keys", putRecords, keys, "eu-west-1", new Date("2026-12-02T10:11:12.345Z")],
    [
      "a session's keys, whose token is signed too",
      putRecords,
      { ...keys, sessionToken: "IQoJb3JpZ2luX2VjEXAMPLE//token+with=odd/characters" },
      "us-east-1",
      new Date("2027-01-01T00:00:00.000Z"),
    ],
    [
      "an endpoint with a port, a path to normalise and spaces in a header",
      {
        ...putRecords,
        host: "127.0.0.1:4567",
        path: "/emulator/./a%20b/../streams/",
        headers: { ...putRecords.headers, "x-amz-target": "  Kinesis_20131202.PutRecords   now " },
      },
      keys,
      "ap-southeast-2",
      new Date("2026-02-28T23:59:59.999Z"),
    ],
  ])("with %s, as the SDK's signer signs it", async (_case, post, credentials, region, at) => {
    const ours = signedPostHeaders(post, credentials, region, "kinesis", at);
    const reference = await sdkSigned(post, credentials, region, at);

    expect(ours.authorization).toBe(reference.authorization);
    expect(ours["x-amz-date"]).toBe(reference["x-amz-date"]);
    expect(ours["x-amz-security-token"]).toBe(reference["x-amz-security-token"]);
  });

  it("with a key of its own secret, day, region and service when the one before had others", async () => {
    const signings: [SigningCredentials, string, "kinesis" | "dynamodb", Date][] = [
      [keys, "eu-west-1", "kinesis", new Date("2026-12-02T10:11:12Z")],
      [{ ...keys, secretAccessKey: "another" }, "eu-west-1", "kinesis", new Date("2026-12-02T10:11:13Z")],
      [keys, "eu-west-2", "kinesis", new Date("2026-12-02T10:11:14Z")],
      [keys, "eu-west-1", "dynamodb", new Date("2026-12-02T10:11:15Z")],
      [keys, "eu-west-1", "kinesis", new Date("2026-12-03T00:00:01Z")],
      [keys, "eu-west-1", "kinesis", new Date("2026-12-02T10:11:16Z")],
    ];
    for (const [credentials, region, service, at] of signings) {
      const ours = signedPostHeaders(putRecords, credentials, region, service, at);
      const reference = await sdkSigned(putRecords, credentials, region, at, service);
      expect(ours.authorization).toBe(reference.authorization);
    }
  });
});

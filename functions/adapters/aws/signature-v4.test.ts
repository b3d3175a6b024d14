import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { KinesisClient } from "@aws-sdk/client-kinesis";
import { S3Client } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import {
  canonicalQuery,
  type PostToSign,
  type RequestToSign,
  type SigningCredentials,
  signedHeaders,
  signedPostHeaders,
  uriEncode,
} from "./signature-v4.js";

/** The headers the SDK's own signer (S3's for S3) gives the same request at the same time: the reference. */
async function sdkSigned(
  request: PostToSign | RequestToSign,
  credentials: SigningCredentials,
  region: string,
  at: Date,
  service: "kinesis" | "dynamodb" | "s3" = "kinesis",
): Promise<Record<string, string>> {
  const client =
    service === "kinesis"
      ? new KinesisClient({ region, credentials })
      : service === "dynamodb"
        ? new DynamoDBClient({ region, credentials })
        : new S3Client({ region, credentials });
  try {
    const signer = await client.config.signer();
    const [hostname, port] = request.host.split(":");
    const signed = await signer.sign(
      {
        method: "method" in request ? request.method : "POST",
        protocol: "https:",
        hostname: hostname ?? "",
        port: port ? Number(port) : undefined,
        path: request.path,
        query: "query" in request ? Object.fromEntries(new URLSearchParams(request.query)) : {},
        headers: { ...request.headers, host: request.host },
        body: request.body,
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

describe("an S3 request signed by Signature Version 4", () => {
  it.each<[string, RequestToSign]>([
    [
      "a PUT of gzip bytes under a key with spaces and unicode, its path encoded once and not normalised",
      {
        method: "PUT",
        host: "beacon-archive.s3.eu-west-1.amazonaws.com",
        path: `/${["events", "tenant=a b", "..", "día=1", "x.json.gz"].map(uriEncode).join("/")}`,
        query: "",
        headers: { "content-type": "application/gzip", "content-length": "3" },
        body: Buffer.from([0x1f, 0x8b, 0x08]),
      },
    ],
    [
      "a listing with a query to sort and encode",
      {
        method: "GET",
        host: "s3.eu-west-1.amazonaws.com",
        path: "/beacon-archive",
        query: canonicalQuery({
          prefix: "events/tenant=a b/",
          "list-type": "2",
          delimiter: "/",
          "continuation-token": "1ab+/c=",
        }),
        headers: {},
        body: "",
      },
    ],
  ])("with %s, as S3's client signs it", async (_case, request) => {
    const at = new Date("2026-12-04T03:04:05.678Z");
    const credentials = { ...keys, sessionToken: "IQoJb3JpZ2luX2VjEXAMPLE//token" };
    const ours = signedHeaders(request, credentials, "eu-west-1", "s3", at);
    const reference = await sdkSigned(request, credentials, "eu-west-1", at, "s3");

    expect(ours.authorization).toBe(reference.authorization);
    expect(ours["x-amz-content-sha256"]).toBe(reference["x-amz-content-sha256"]);
  });

  it("with a query's parameters ordered by their encoded names, whatever their order given", () => {
    expect(canonicalQuery({ b: "1", "a-b": "x y", a: "2/3", skipped: undefined })).toBe(
      "a=2%2F3&a-b=x%20y&b=1",
    );
  });
});

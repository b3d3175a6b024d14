import type { IncomingHttpHeaders } from "node:http";
import { beforeEach, describe, expect, it } from "vitest";
import { localService } from "../../../scripts/test-support/local-service.js";
import { objectsForDirectCalls } from "../../runtime/aws-clients/direct.js";
import { makeS3Client } from "../../runtime/aws-clients/s3.js";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import { AwsServiceError } from "../aws/retried.js";
import { listingOf, type ObjectCalls, s3ObjectCalls } from "./object-calls.js";

type Answer = { status: number; body: string };

// S3Proxy never throttles or fails with a 5xx: this server answers as S3 does when it does.
const requests: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer }[] = [];
let answers: Answer[] = [];
const service = localService((request, body, response) => {
  requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
  const answer = answers.shift() ?? { status: 200, body: "" };
  response.writeHead(answer.status, { "content-type": "application/xml" });
  response.end(answer.body);
});

const error = (status: number, code: string, message: string): Answer => ({
  status,
  body: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
});

const listing = (body: string): Answer => ({
  status: 200,
  body: `<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>archive</Name><Prefix>events/</Prefix>${body}</ListBucketResult>`,
});

beforeEach(() => {
  requests.length = 0;
  answers = [];
});

// The SDK's client, whose configuration the calls borrow (tests, tooling), and a client made for direct calls alone,
// whose settings come from the environment without the SDK (a function's).
describe.each([
  ["an SDK client", makeS3Client],
  ["a client made for direct calls", objectsForDirectCalls],
] as const)("S3 object calls through %s", (_client, makeClient) => {
  const objects = (): ObjectCalls =>
    s3ObjectCalls(makeClient(service.env(AwsEndpointEnvNames.s3)), "archive");

  it("put, get and list the bucket's objects by path at an endpoint of the operator's own, signed for S3", async () => {
    const calls = objects();
    answers = [
      { status: 200, body: "" },
      { status: 200, body: "gzip bytes" },
      listing("<IsTruncated>false</IsTruncated>"),
    ];

    await calls.put("events/tenant=a b/x.json.gz", Buffer.from([1, 2, 3]), "application/gzip");
    expect((await calls.get("events/tenant=a b/x.json.gz")).toString()).toBe("gzip bytes");
    await calls.list("events/", { delimiter: "/", continuationToken: "t+1/=" });

    expect(requests.map(({ method, url }) => `${method} ${url}`)).toEqual([
      "PUT /archive/events/tenant%3Da%20b/x.json.gz",
      "GET /archive/events/tenant%3Da%20b/x.json.gz",
      "GET /archive?continuation-token=t%2B1%2F%3D&delimiter=%2F&list-type=2&prefix=events%2F",
    ]);
    const [put] = requests;
    expect(put?.body).toEqual(Buffer.from([1, 2, 3]));
    expect(put?.headers["content-type"]).toBe("application/gzip");
    expect(put?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/s3\/aws4_request, /,
    );
    expect(put?.headers["x-amz-content-sha256"]).toBe(
      "039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81",
    );
  });

  it("fail with the error S3 names, without another attempt where another would fail too", async () => {
    answers = [error(404, "NoSuchKey", "The specified key does not exist.")];

    const failure = await objects()
      .get("events/gone.json.gz")
      .catch((caught: unknown) => caught);

    expect(failure).toBeInstanceOf(AwsServiceError);
    expect(failure).toMatchObject({
      name: "NoSuchKey",
      statusCode: 404,
      message: "The specified key does not exist.",
    });
    expect(requests).toHaveLength(1);
  });

  it("retry a throttled call and a server error by the client's strategy", async () => {
    answers = [
      error(503, "SlowDown", "Please reduce your request rate."),
      error(500, "InternalError", "oops"),
    ];

    await objects().put("events/x.json.gz", Buffer.from("x"), "application/gzip");

    expect(requests).toHaveLength(3);
  });
});

describe("a listing read", () => {
  it("gives its objects, its folders and, when truncated, the next page's token, with XML's entities decoded", () => {
    const page = listingOf(
      listing(`<KeyCount>3</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated>
<Contents><Key>events/a&amp;b &lt;1&gt;.json.gz</Key><LastModified>2026-12-04T03:04:05.000Z</LastModified><ETag>&quot;x&quot;</ETag><Size>120</Size><StorageClass>STANDARD</StorageClass></Contents>
<Contents><Key>events/&#233;t&#xE9;.json.gz</Key><LastModified>2026-12-04T03:04:06.000Z</LastModified><Size>0</Size></Contents>
<CommonPrefixes><Prefix>events/day=2026-12-04/</Prefix></CommonPrefixes>
<NextContinuationToken>1ueG+/x=</NextContinuationToken>`).body,
    );

    expect(page).toEqual({
      objects: [
        { key: "events/a&b <1>.json.gz", size: 120, lastModified: new Date("2026-12-04T03:04:05Z") },
        { key: "events/été.json.gz", size: 0, lastModified: new Date("2026-12-04T03:04:06Z") },
      ],
      folders: ["events/day=2026-12-04/"],
      next: "1ueG+/x=",
    });
  });

  it("gives no next token for the last page, and none of the request's own prefix as a folder", () => {
    expect(listingOf(listing("<IsTruncated>false</IsTruncated>").body)).toEqual({ objects: [], folders: [] });
  });
});

import type { IncomingHttpHeaders } from "node:http";
import { beforeEach, describe, expect, it } from "vitest";
import { localService } from "../../../scripts/test-support/local-service.js";
import { documentsForDirectCalls } from "../../runtime/aws-clients/direct.js";
import { makeDocumentClient } from "../../runtime/aws-clients/dynamodb.js";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import { type JsonProtocolCall, jsonProtocolCalls } from "./json-protocol.js";
import { AwsServiceError } from "./retried.js";

type Answer = { status: number; body: unknown } | "hang up" | "hold";

// DynamoDB Local never throttles or fails with a 5xx: this server answers as DynamoDB does when it does.
const requests: { headers: IncomingHttpHeaders; body: string }[] = [];
let answers: Answer[] = [];
const service = localService((request, body, response) => {
  requests.push({ headers: request.headers, body: body.toString() });
  const answer = answers.shift() ?? { status: 200, body: {} };
  if (answer === "hang up") {
    request.socket.destroy();
    return;
  }
  if (answer === "hold") return; // Frozen, as a stopped process: the connection open, nothing answered.
  response.writeHead(answer.status, { "content-type": "application/x-amz-json-1.0" });
  response.end(typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body));
});

// The SDK's client, whose configuration the calls borrow (tests, tooling), and a client made for direct calls alone,
// whose settings come from the environment without the SDK (a function's).
const clients = [
  ["an SDK client", makeDocumentClient],
  ["a client made for direct calls", documentsForDirectCalls],
] as const;
let makeClient: (env: Record<string, string>) => Parameters<typeof jsonProtocolCalls>[0];

const calls = (retried: boolean): JsonProtocolCall =>
  jsonProtocolCalls(makeClient(service.env(AwsEndpointEnvNames.dynamodb)), {
    targetPrefix: "DynamoDB_20120810",
    signingName: "dynamodb",
    contentType: "application/x-amz-json-1.0",
    retried,
  });

const throttled: Answer = {
  status: 400,
  body: {
    __type: "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
    message: "slow down",
  },
};

beforeEach(() => {
  requests.length = 0;
  answers = [];
});

describe.each(clients)("JSON-protocol calls through %s", (_kind, make) => {
  beforeEach(() => {
    makeClient = make;
  });

  it("post the operation's input, signed, to the client's endpoint, and answer the output's text", async () => {
    answers = [{ status: 200, body: { Count: 1 } }];

    await expect(calls(true)("Query", '{"TableName":"beacon"}')).resolves.toBe('{"Count":1}');

    expect(requests).toHaveLength(1);
    expect(requests[0]?.body).toBe('{"TableName":"beacon"}');
    expect(requests[0]?.headers).toMatchObject({
      "x-amz-target": "DynamoDB_20120810.Query",
      "content-type": "application/x-amz-json-1.0",
      authorization: expect.stringMatching(
        /^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/dynamodb\//,
      ),
    });
  });

  it("fail with the service's error name, message and the rest of what it said, without retrying a refusal", async () => {
    answers = [
      {
        status: 400,
        body: {
          __type: "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
          message: "The conditional request failed",
          Item: { pk: { S: "x" } },
        },
      },
    ];

    const failure = await calls(true)("PutItem", "{}").catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(AwsServiceError);
    expect(failure).toMatchObject({
      name: "ConditionalCheckFailedException",
      message: "The conditional request failed",
      statusCode: 400,
      Item: { pk: { S: "x" } },
    });
    expect(requests).toHaveLength(1);
  });

  it("name a failure that is not the service's JSON by its status", async () => {
    answers = [{ status: 502, body: "<html>Bad Gateway</html>" }];

    await expect(calls(false)("Query", "{}")).rejects.toMatchObject({
      name: "HTTP502",
      message: "<html>Bad Gateway</html>",
    });
  });

  it("retry a throttled call, a server error and a broken connection by the client's strategy", async () => {
    answers = [
      throttled,
      { status: 500, body: { __type: "InternalServerError" } },
      { status: 200, body: {} },
    ];
    await expect(calls(true)("Query", "{}")).resolves.toBe("{}");
    expect(requests).toHaveLength(3);

    requests.length = 0;
    answers = ["hang up", { status: 200, body: {} }];
    await expect(calls(true)("Query", "{}")).resolves.toBe("{}");
    expect(requests).toHaveLength(2);
  });

  it("give up after the client's attempts with the last failure", async () => {
    answers = [throttled, throttled, throttled, { status: 200, body: {} }];

    await expect(calls(true)("Query", "{}")).rejects.toMatchObject({
      name: "ProvisionedThroughputExceededException",
    });
    expect(requests).toHaveLength(3);
  });

  it("give up a call, retries and backoff included, when its signal aborts", async () => {
    answers = ["hold", { status: 200, body: {} }];
    const aborting = new AbortController();
    const call = calls(true)("Query", "{}", aborting.signal);
    await expect.poll(() => requests.length).toBe(1);
    aborting.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });

    requests.length = 0;
    answers = [throttled, { status: 200, body: {} }];
    await expect(calls(true)("Query", "{}", AbortSignal.timeout(0))).rejects.toBeDefined();
    expect(requests).toHaveLength(0);
    service.server.closeAllConnections();
  });

  it("make a call once when not retried", async () => {
    answers = [throttled, { status: 200, body: {} }];

    await expect(calls(false)("Query", "{}")).rejects.toBeInstanceOf(AwsServiceError);
    expect(requests).toHaveLength(1);
  });
});

describe("JSON-protocol calls through an SDK client", () => {
  it("go to the endpoint the environment names for the service, as the SDK's commands do", async () => {
    const before = { ...process.env };
    // A client given no endpoint of its own: the SDK finds the service's endpoint in the environment.
    Object.assign(process.env, service.env(AwsEndpointEnvNames.dynamodb));
    try {
      const call = jsonProtocolCalls(makeDocumentClient({}), {
        targetPrefix: "DynamoDB_20120810",
        signingName: "dynamodb",
        contentType: "application/x-amz-json-1.0",
        retried: false,
      });

      await expect(call("GetItem", "{}")).resolves.toBe("{}");
      expect(requests).toHaveLength(1);
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in before)) delete process.env[name];
      Object.assign(process.env, before);
    }
  });
});

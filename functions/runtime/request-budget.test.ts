import type { ServerResponse } from "node:http";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { localService } from "../../scripts/test-support/local-service.js";
import { untilTrue } from "../../scripts/test-support/until.js";
import { directCalls } from "../adapters/dynamodb/direct-calls.js";
import { AwsEndpointEnvNames } from "../shared/env-names.js";
import { makeDocumentClient } from "./aws-clients/dynamodb.js";
import { boundedByRequest, withinRequestBudget } from "./request-budget.js";

/** A DynamoDB that takes requests and answers each only when told to, as one frozen and thawed. */
const held: ServerResponse[] = [];
let requests = 0;
const dynamoDb = localService((_request, _body, response) => {
  requests++;
  held.push(response);
});
/** Calls the server holds whose client still waits for the answer. */
const waiting = () => held.filter((response) => !response.socket?.destroyed).length;
const answerHeld = () => {
  for (const response of held.splice(0)) {
    response.setHeader("content-type", "application/x-amz-json-1.0");
    response.end("{}");
  }
};
let client: ReturnType<typeof makeDocumentClient>;

beforeAll(() => {
  client = boundedByRequest(makeDocumentClient(dynamoDb.env(AwsEndpointEnvNames.dynamodb)));
  // Made now, not by the first test's call (clients are made on first use), whose deadline it would spend.
  expect(client.config.region).toBeDefined();
});

afterAll(async () => {
  client.destroy();
});

beforeEach(() => {
  answerHeld();
  requests = 0;
});

// The SDK's commands take the budget through `send`; the calls sent directly (direct-calls.ts) ask the client for it.
describe.each([
  ["an SDK command", () => client.send(new GetCommand({ TableName: "beacon", Key: { pk: "a", sk: "b" } }))],
  [
    "a direct call",
    () =>
      directCalls(client).query({
        TableName: "beacon",
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": "a" },
      }),
  ],
])("%s of a client bounded by the request", (_, get: () => Promise<unknown>) => {
  it("gives up a call still unanswered at the request's deadline, once, without retrying it", async () => {
    const began = Date.now();
    const outcome = await withinRequestBudget(began + 300, () => get()).catch((error: Error) => error);
    const waited = Date.now() - began;
    expect(outcome).toMatchObject({ name: "AbortError" });
    expect(waited).toBeGreaterThanOrEqual(290);
    // Well within the client's own request timeout (15 s against an emulator) and its three attempts.
    expect(waited).toBeLessThan(3_000);
    expect(requests).toBe(1);
  });

  it("fails at once a call begun past the deadline", async () => {
    const outcome = await withinRequestBudget(Date.now() - 1, () => get()).catch((error: Error) => error);
    expect(outcome).toMatchObject({ name: "AbortError" });
    expect(requests).toBe(0);
  });

  it("leaves unbounded the calls made outside a request, and those its work leaves running", async () => {
    const deadline = Date.now() + 200;
    let later: Promise<unknown> = Promise.resolve();
    await withinRequestBudget(deadline, async () => {
      // Begun once the request is answered, as the clearing of a late put's staged events is.
      later = new Promise((resolve) => setImmediate(resolve)).then(() => get());
    });
    const outside = get();
    // A call of a request with the same deadline, given up: the others outlived the deadline.
    await expect(withinRequestBudget(deadline, () => get())).rejects.toMatchObject({ name: "AbortError" });
    await untilTrue("the two unbounded calls waiting at the server", () => waiting() === 2);
    answerHeld();
    await expect(later).resolves.toBeDefined();
    await expect(outside).resolves.toBeDefined();
  });
});

import type { LambdaClient } from "@aws-sdk/client-lambda";
import type { Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTemporaryFunctionLog } from "../../../scripts/local/function-logs.js";
import {
  type LocalLambdaEndpoint,
  startLocalLambdaEndpoint,
} from "../../../scripts/local/lambda-endpoint.js";
import { invoker } from "../../../scripts/local/lambda-runtime.js";
import type { WebhookTestRequest } from "../../core/webhooks/ports.js";
import { webhookTestRequestOf } from "../../core/webhooks/test-sender.js";
import { makeLambdaClient } from "../../runtime/aws-clients/lambda.js";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import { LambdaWebhookTester } from "./webhook-tester.js";

const request: WebhookTestRequest = {
  tenant: "acme",
  subscriptionId: "wh-0001700000000-one",
  notificationId: "test-1",
  requestedBy: "acme-admin",
};

const functionLog = openTemporaryFunctionLog();
const received: WebhookTestRequest[] = [];
let releaseHung: () => void = () => {};
const runtime = (name: string, handler: (event: unknown, context: Context) => Promise<unknown>) => ({
  name,
  invoke: invoker({ name, timeoutSeconds: 10 }, functionLog.log, handler),
});
/** Functions answering as the dispatcher does, and as it might fail. */
const functions = [
  runtime("dispatcher", async (event) => {
    const test = webhookTestRequestOf(event);
    if (!test) throw new Error("no test request");
    received.push(test);
    return test.subscriptionId === request.subscriptionId
      ? { found: true, response: { status: 204, durationMs: 12 } }
      : { found: false };
  }),
  runtime("throwing", async () => {
    throw new Error("Task timed out after 50.00 seconds");
  }),
  runtime("garbled", async () => ({ found: true, response: { status: "ok" } })),
  runtime("hanging", () => new Promise<void>((resolve) => (releaseHung = resolve))),
];

let endpoint: LocalLambdaEndpoint;
const clients: LambdaClient[] = [];
const testerOf = (functionName: string, requestTimeoutMs = 5_000) => {
  const client = makeLambdaClient(requestTimeoutMs, {
    [AwsEndpointEnvNames.lambda]: endpoint.url,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
  });
  clients.push(client);
  return new LambdaWebhookTester(client, functionName);
};

beforeAll(async () => {
  endpoint = await startLocalLambdaEndpoint({ port: 0, functions, log: () => {} });
});

afterAll(async () => {
  releaseHung();
  for (const client of clients) client.destroy();
  await endpoint?.close();
  functionLog.close();
});

const unavailable = (why: RegExp) =>
  expect.objectContaining({ code: "webhook_tester_unavailable", message: expect.stringMatching(why) });

describe("the Lambda webhook tester", () => {
  it("sends the test request to the function and answers its outcome", async () => {
    const tester = testerOf("dispatcher");
    expect(await tester.test(request)).toEqual({ found: true, response: { status: 204, durationMs: 12 } });
    expect(received.at(-1)).toEqual(request);
    expect(await tester.test({ ...request, subscriptionId: "wh-0001700000000-gone" })).toEqual({
      found: false,
    });
  });

  it("fails as unavailable when the function is not there", async () => {
    await expect(testerOf("no-such-function").test(request)).rejects.toThrow(
      unavailable(/invocation failed \(ResourceNotFoundException\)/),
    );
  });

  it("fails as unavailable, naming Lambda's error type, when the function throws", async () => {
    await expect(testerOf("throwing").test(request)).rejects.toThrow(
      unavailable(/function failed \(Unhandled, Error\)/),
    );
  });

  it("fails as unavailable when the function answers what is not a test's outcome", async () => {
    await expect(testerOf("garbled").test(request)).rejects.toThrow(unavailable(/not a test's outcome/));
  });

  it("gives up on a function that does not answer within its request timeout", async () => {
    await expect(testerOf("hanging", 200).test(request)).rejects.toThrow(
      unavailable(/invocation failed \(ETIMEDOUT\)/),
    );
  });
});

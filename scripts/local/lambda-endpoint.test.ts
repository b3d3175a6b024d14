import { InvokeCommand, type LambdaClient, ResourceNotFoundException } from "@aws-sdk/client-lambda";
import type { Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeLambdaClient } from "../../functions/runtime/aws-clients/lambda.js";
import { AwsEndpointEnvNames } from "../../functions/shared/env-names.js";
import { openTemporaryFunctionLog } from "./function-logs.js";
import { type LocalLambdaEndpoint, startLocalLambdaEndpoint } from "./lambda-endpoint.js";
import { invoker } from "./lambda-runtime.js";

const functionLog = openTemporaryFunctionLog();
const invoked: unknown[] = [];
const runtime = (name: string, handler: (event: unknown, context: Context) => Promise<unknown>) => ({
  name,
  invoke: invoker({ name, timeoutSeconds: 10 }, functionLog.log, handler),
});
const functions = [
  runtime("echo", async (event, context) => {
    invoked.push(event);
    return { event, functionName: context.functionName };
  }),
  runtime("silent", async (event) => {
    invoked.push(event);
  }),
  runtime("failing", async () => {
    throw new TypeError("no subscription store");
  }),
];

let endpoint: LocalLambdaEndpoint;
let lambda: LambdaClient;

beforeAll(async () => {
  endpoint = await startLocalLambdaEndpoint({ port: 0, functions, log: () => {} });
  lambda = makeLambdaClient(5_000, {
    [AwsEndpointEnvNames.lambda]: endpoint.url,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
  });
});

afterAll(async () => {
  lambda?.destroy();
  await endpoint?.close();
  functionLog.close();
});

const invoke = (FunctionName: string, payload?: string, InvocationType?: "Event" | "DryRun") =>
  lambda.send(
    new InvokeCommand({
      FunctionName,
      InvocationType,
      Payload: payload === undefined ? undefined : new TextEncoder().encode(payload),
    }),
  );
const textOf = (payload: Uint8Array | undefined) => new TextDecoder().decode(payload);

describe("the local Lambda endpoint, through the SDK's Lambda client", () => {
  it("runs the named function's handler in the local runtime and answers its result as JSON", async () => {
    const answer = await invoke("echo", JSON.stringify({ webhookTest: { tenant: "acme" } }));
    expect(answer.StatusCode).toBe(200);
    expect(answer.FunctionError).toBeUndefined();
    expect(answer.ExecutedVersion).toBe("$LATEST");
    expect(JSON.parse(textOf(answer.Payload))).toEqual({
      event: { webhookTest: { tenant: "acme" } },
      functionName: "echo",
    });
  });

  it("finds a function by its ARN too, and answers null for a handler that returns nothing", async () => {
    const answer = await invoke("arn:aws:lambda:local:000000000000:function:silent", "{}");
    expect(answer.StatusCode).toBe(200);
    expect(textOf(answer.Payload)).toBe("null");
  });

  it("answers a handler that throws as Lambda does: 200 with X-Amz-Function-Error and the error document", async () => {
    const answer = await invoke("failing", "{}");
    expect(answer.StatusCode).toBe(200);
    expect(answer.FunctionError).toBe("Unhandled");
    expect(JSON.parse(textOf(answer.Payload))).toMatchObject({
      errorType: "TypeError",
      errorMessage: "no subscription store",
      trace: expect.any(Array),
    });
  });

  it("answers an unknown function 404 ResourceNotFoundException, naming its ARN", async () => {
    const failure = await invoke("no-such-function", "{}").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ResourceNotFoundException);
    expect(failure).toMatchObject({
      $metadata: { httpStatusCode: 404 },
      message: expect.stringContaining("function:no-such-function"),
    });
  });

  it("refuses a payload that is no JSON without running the function", async () => {
    const before = invoked.length;
    const failure = await invoke("echo", "{not json").catch((error: unknown) => error);
    expect(failure).toMatchObject({
      name: "InvalidRequestContentException",
      $metadata: { httpStatusCode: 400 },
    });
    expect(invoked.length).toBe(before);
  });

  it("accepts an Event invocation at once with 202 and runs it, and runs nothing for a DryRun", async () => {
    const before = invoked.length;
    expect((await invoke("silent", '{"dry":true}', "DryRun")).StatusCode).toBe(204);
    const accepted = await invoke("silent", '{"queued":true}', "Event");
    expect(accepted.StatusCode).toBe(202);
    await expect.poll(() => invoked.slice(before)).toEqual([{ queued: true }]);
  });
});

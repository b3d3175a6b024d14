import { InvokeCommand, type InvokeCommandOutput, type LambdaClient } from "@aws-sdk/client-lambda";
import { BeaconError } from "../../core/errors.js";
import type { WebhookTester, WebhookTestOutcome, WebhookTestRequest } from "../../core/webhooks/ports.js";
import { webhookTestOutcomeOf, webhookTestPayload } from "../../core/webhooks/test-sender.js";

const unavailable = (why: string) =>
  new BeaconError("webhook_tester_unavailable", `The webhook dispatcher could not post the test: ${why}`);

/** What Lambda answers for a handler that threw or a function that timed out. */
function functionErrorOf(payload: string): string {
  try {
    const { errorType } = JSON.parse(payload) as { errorType?: unknown };
    return typeof errorType === "string" ? errorType : "no error type";
  } catch {
    return "no error type";
  }
}

/**
 * Asks the function that can reach receivers (the webhook dispatcher, outside the VPC) to post a subscription's
 * test, and waits for its answer: a synchronous Lambda Invoke, through the VPC's Lambda endpoint on AWS.
 * The client gives up after its request timeout; every failure of the call or of the function is a
 * `webhook_tester_unavailable` error, naming its kind and never a receiver's details.
 */
export class LambdaWebhookTester implements WebhookTester {
  constructor(
    private readonly lambda: LambdaClient,
    private readonly functionName: string,
  ) {}

  async test(request: WebhookTestRequest): Promise<WebhookTestOutcome> {
    let answer: InvokeCommandOutput;
    try {
      answer = await this.lambda.send(
        new InvokeCommand({
          FunctionName: this.functionName,
          InvocationType: "RequestResponse",
          Payload: new TextEncoder().encode(JSON.stringify(webhookTestPayload(request))),
        }),
      );
    } catch (error) {
      // The SDK's errors name Lambda's error type; a failed connection only its system code.
      const { name, code } = error as Error & { code?: unknown };
      throw unavailable(`the invocation failed (${typeof code === "string" ? code : name})`);
    }
    const payload = answer.Payload ? new TextDecoder().decode(answer.Payload) : "";
    if (answer.FunctionError) {
      throw unavailable(`the function failed (${answer.FunctionError}, ${functionErrorOf(payload)})`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      parsed = undefined;
    }
    const outcome = webhookTestOutcomeOf(parsed);
    if (!outcome) throw unavailable("its answer was not a test's outcome");
    return outcome;
  }
}

/**
 * Runs a handler module's invocations the way Lambda's Node.js runtime runs them when many share one process (as
 * Lambda Managed Instances do): each with a context of its own (a fresh request id, the function's name and ARN,
 * the time left before its deadline), each in a scope of Lambda's InvokeStore. `AWS_LAMBDA_MAX_CONCURRENCY` tells
 * Powertools to keep per invocation what it keeps per process otherwise (the Lambda context, the keys a handler
 * appends to its log records, the metrics it has not yet published). Without it, concurrent requests would log
 * each other's request ids and tenants and publish each other's counts. The local stack runs handlers so; the
 * agent service (the agent API on Fargate) runs each request in such a scope, with no Lambda context.
 */
import { randomUUID } from "node:crypto";
import { InvokeStore, InvokeStoreBase } from "@aws/lambda-invoke-store";
import type { Context } from "aws-lambda";

// Made when this module loads, before any function module or AWS SDK request: the first to ask for the store
// decides for the whole process whether it scopes invocations, and the SDK asks on its first request.
const invokeStore = await InvokeStore.getInstanceAsync(true);
const scopesInvocations = invokeStore.run({}, () => invokeStore.hasContext()) && !invokeStore.hasContext();
if (!scopesInvocations) {
  throw new Error(
    "Lambda's InvokeStore was made before functions/shared/invocations.ts loaded and keeps one invocation per " +
      "process: import it before anything sends an AWS request",
  );
}
// Any value turns the scoping on; no bound on concurrent invocations applies.
process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= "1000";

/** What an invocation's context says of the function it is one of. */
export interface InvokedFunction {
  /** The function's name in its context and log records, e.g. "agent-api". */
  readonly name: string;
  /** The time each invocation is given (FunctionTimeouts): its context counts down from it. */
  readonly timeoutSeconds: number;
  readonly arn: string;
  readonly memoryLimitInMB: string;
  readonly logGroupName: string;
  readonly logStreamName: string;
}

/** `handler` as Lambda invokes it: each call one invocation of `fn`, in a scope of its own. */
export function invoker<Event, Result>(
  fn: InvokedFunction,
  handler: (event: Event, context: Context) => Promise<Result>,
): (event: Event) => Promise<Result> {
  return (event) => {
    const context = invocationContext(fn);
    return inInvocationScope(context.awsRequestId, () => handler(event, context));
  };
}

/**
 * Runs `work` in a scope of its own, as Lambda runs one invocation: what Powertools keeps per invocation (log keys,
 * metrics not yet published) is `work`'s alone.
 */
export function inInvocationScope<Result>(requestId: string, work: () => Promise<Result>): Promise<Result> {
  return invokeStore.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: requestId }, work);
}

function invocationContext(fn: InvokedFunction): Context {
  const deadline = Date.now() + fn.timeoutSeconds * 1000;
  const callbackStyle = () => {
    throw new Error(`${fn.name}: only async handlers are supported: return the result`);
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fn.name,
    functionVersion: "$LATEST",
    invokedFunctionArn: fn.arn,
    memoryLimitInMB: fn.memoryLimitInMB,
    awsRequestId: randomUUID(),
    logGroupName: fn.logGroupName,
    logStreamName: fn.logStreamName,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: callbackStyle,
    fail: callbackStyle,
    succeed: callbackStyle,
  };
}

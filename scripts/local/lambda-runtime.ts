/**
 * The local stand-in for Lambda's Node.js runtime. It invokes the very handler modules that run on AWS as Lambda
 * does: each invocation with a context of its own (a fresh request id, the function's name and ARN, the time left
 * before the function's timeout), what it writes going to the function log under the function's name.
 *
 * The local stack runs many invocations of a function at once in one process, as Lambda Managed Instances run
 * them in one execution environment, and it keeps them apart the same way: each invocation runs in a scope of
 * Lambda's InvokeStore, and `AWS_LAMBDA_MAX_CONCURRENCY` tells Powertools to keep per invocation what it keeps
 * per process otherwise (the Lambda context, the keys a handler appends to its log records, the metrics it has
 * not yet published). Without it, concurrent requests would log each other's request ids and tenants.
 */
import { randomUUID } from "node:crypto";
import { InvokeStore, InvokeStoreBase } from "@aws/lambda-invoke-store";
import type { Context } from "aws-lambda";
import type { FunctionLog } from "./function-logs.js";

const ACCOUNT_ID = "000000000000";
const REGION = "local";
/** No memory limit applies in this process; Lambda's context always names one. */
const MEMORY_LIMIT_MB = "1024";

// Made when this module loads, before any function module or AWS SDK request: the first to ask for the store
// decides for the whole process whether it scopes invocations, and the SDK asks on its first request.
const invokeStore = await InvokeStore.getInstanceAsync(true);
const scopesInvocations = invokeStore.run({}, () => invokeStore.hasContext()) && !invokeStore.hasContext();
if (!scopesInvocations) {
  throw new Error(
    "Lambda's InvokeStore was made before the local Lambda runtime loaded and keeps one invocation per process: " +
      "import scripts/local/lambda-runtime.ts before anything sends an AWS request",
  );
}
// Any value turns the scoping on; the local stack sets no bound on concurrent invocations.
process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= "1000";

/**
 * What the CDK function construct and Lambda set in a function's environment, with local values, where the user
 * has not set them. Metrics are on, as on AWS: their EMF lines go to the function log's file, as Lambda's go to
 * CloudWatch Logs. Function modules read these when they are first imported, so this comes first.
 */
export function setLocalLambdaEnvironment(logs: FunctionLog): void {
  process.env.POWERTOOLS_SERVICE_NAME ??= "beacon-local";
  process.env.POWERTOOLS_METRICS_NAMESPACE ??= "Beacon";
  process.env.POWERTOOLS_LOG_LEVEL ??= logs.powertoolsLogLevel;
  // Powertools reports cold starts only for on-demand environments, as Lambda names them.
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE ??= "on-demand";
}

export interface LocalFunction {
  /** The function's name in its context and log records, e.g. "agent-api". */
  readonly name: string;
  /** As the CDK app deploys it (FunctionTimeouts): the time each invocation is given. */
  readonly timeoutSeconds: number;
}

/** `handler` as Lambda invokes it: each call one invocation of `fn`, writing to `logs`. */
export function invoker<Event, Result>(
  fn: LocalFunction,
  logs: FunctionLog,
  handler: (event: Event, context: Context) => Promise<Result>,
): (event: Event) => Promise<Result> {
  return (event) => {
    const context = lambdaContext(fn);
    const scope = { [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId };
    return logs.run(fn.name, () => invokeStore.run(scope, () => handler(event, context)));
  };
}

function lambdaContext(fn: LocalFunction): Context {
  const deadline = Date.now() + fn.timeoutSeconds * 1000;
  const callbackStyle = () => {
    throw new Error("The local Lambda runtime supports async handlers only: return the result");
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fn.name,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT_ID}:function:${fn.name}`,
    memoryLimitInMB: MEMORY_LIMIT_MB,
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${fn.name}`,
    logStreamName: "local",
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: callbackStyle,
    fail: callbackStyle,
    succeed: callbackStyle,
  };
}

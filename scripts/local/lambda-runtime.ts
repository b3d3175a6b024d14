/**
 * The local stand-in for Lambda's Node.js runtime. It invokes the very handler modules that run on AWS as Lambda
 * does: each invocation with a context of its own and in a scope of its own (functions/shared/invocations.ts), what
 * it writes going to the function log under the function's name. The local stack runs many invocations of a
 * function at once in one process, as Lambda Managed Instances run them in one execution environment.
 */
import type { Context } from "aws-lambda";
// Before any function module or AWS SDK request (see the module).
import { invoker as scopedInvoker } from "../../functions/shared/invocations.js";
import type { FunctionLog } from "./function-logs.js";

const ACCOUNT_ID = "000000000000";
const REGION = "local";
/** No memory limit applies in this process; Lambda's context always names one. */
const MEMORY_LIMIT_MB = "1024";

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
  const invoke = scopedInvoker(
    {
      ...fn,
      arn: `arn:aws:lambda:${REGION}:${ACCOUNT_ID}:function:${fn.name}`,
      memoryLimitInMB: MEMORY_LIMIT_MB,
      logGroupName: `/aws/lambda/${fn.name}`,
      logStreamName: "local",
    },
    handler,
  );
  return (event) => logs.run(fn.name, () => invoke(event));
}

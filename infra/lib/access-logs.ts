import type { RemovalPolicy } from "aws-cdk-lib";
import { AccessLogFormat, LogGroupLogDestination as RestApiLogDestination } from "aws-cdk-lib/aws-apigateway";
import { type IAccessLogSettings, LogGroupLogDestination } from "aws-cdk-lib/aws-apigatewayv2";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";

export interface AccessLogProps {
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * JSON access logs, in a log group of their own: what every Beacon API records, with the fields that name its
 * callers (a client certificate, a token's subject) in between, and the route as the API's kind spells it.
 */
function accessLogs(
  scope: Construct,
  props: AccessLogProps,
  callerFields: Record<string, string>,
  route: string,
): { logGroup: LogGroup; format: AccessLogFormat } {
  const logGroup = new LogGroup(scope, "AccessLogs", {
    retention: props.logRetention,
    removalPolicy: props.removalPolicy,
  });
  const format = AccessLogFormat.custom(
    JSON.stringify({
      requestId: "$context.requestId",
      time: "$context.requestTimeEpoch",
      sourceIp: "$context.identity.sourceIp",
      ...callerFields,
      routeKey: route,
      status: "$context.status",
      latencyMs: "$context.responseLatency",
      integrationError: "$context.integrationErrorMessage",
    }),
  );
  return { logGroup, format };
}

/** An HTTP API stage's access logs. */
export function accessLogsOf(
  scope: Construct,
  props: AccessLogProps,
  callerFields: Record<string, string>,
): IAccessLogSettings {
  const { logGroup, format } = accessLogs(scope, props, callerFields, "$context.routeKey");
  return { destination: new LogGroupLogDestination(logGroup), format };
}

/** A REST API stage's access logs, as its deployment options take them: its route is method and resource. */
export function restApiAccessLogsOf(
  scope: Construct,
  props: AccessLogProps,
  callerFields: Record<string, string>,
) {
  const { logGroup, format } = accessLogs(
    scope,
    props,
    callerFields,
    "$context.httpMethod $context.resourcePath",
  );
  return { accessLogDestination: new RestApiLogDestination(logGroup), accessLogFormat: format };
}

import type { RemovalPolicy } from "aws-cdk-lib";
import { AccessLogFormat } from "aws-cdk-lib/aws-apigateway";
import { type IAccessLogSettings, LogGroupLogDestination } from "aws-cdk-lib/aws-apigatewayv2";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";

export interface AccessLogProps {
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * JSON access logs for an HTTP API stage, in a log group of their own: what every Beacon API records, with
 * the fields that name its callers (a client certificate, a token's subject) in between.
 */
export function accessLogsOf(
  scope: Construct,
  props: AccessLogProps,
  callerFields: Record<string, string>,
): IAccessLogSettings {
  const logGroup = new LogGroup(scope, "AccessLogs", {
    retention: props.logRetention,
    removalPolicy: props.removalPolicy,
  });
  return {
    destination: new LogGroupLogDestination(logGroup),
    format: AccessLogFormat.custom(
      JSON.stringify({
        requestId: "$context.requestId",
        time: "$context.requestTimeEpoch",
        sourceIp: "$context.identity.sourceIp",
        ...callerFields,
        routeKey: "$context.routeKey",
        status: "$context.status",
        latencyMs: "$context.responseLatency",
        integrationError: "$context.integrationErrorMessage",
      }),
    ),
  };
}

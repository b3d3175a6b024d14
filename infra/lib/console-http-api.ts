import { Fn, type RemovalPolicy } from "aws-cdk-lib";
import { HttpApi, HttpMethod, type IHttpRouteAuthorizer } from "aws-cdk-lib/aws-apigatewayv2";
import { HttpJwtAuthorizer, HttpUserPoolAuthorizer } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import type { IUserPoolClient } from "aws-cdk-lib/aws-cognito";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { consoleOperations } from "../../functions/shared/console-openapi.js";
import { accessLogsOf } from "./access-logs.js";
import type { ConsoleIdentity, Throttle } from "./config.js";
import type { ConsoleUsers } from "./console-users.js";

export interface ConsoleHttpApiProps {
  readonly handler: IFunction;
  readonly identity: ConsoleIdentity;
  /** The user pool, when the identity is Beacon's own. */
  readonly users: ConsoleUsers | undefined;
  /** The pool's clients besides its console client whose ID tokens the API accepts: the web console's, the CLI's. */
  readonly clients: IUserPoolClient[];
  readonly throttle: Throttle;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The console API: an HTTP API of its own (mutual TLS belongs to the agents' domain as a whole), every route
 * of the OpenAPI document behind a JWT authorizer. The authorizer checks signature, issuer, audience and
 * lifetime; the function takes tenant and role from the verified claims.
 */
export class ConsoleHttpApi extends Construct {
  readonly url: string;
  /** The API's own host name, for a distribution that serves it under /api/ of another origin. */
  readonly host: string;

  constructor(scope: Construct, id: string, props: ConsoleHttpApiProps) {
    super(scope, id);
    const api = new HttpApi(this, "Api", {
      description: "Beacon console API (JWT)",
      createDefaultStage: false,
      defaultAuthorizer: authorizerFor(props),
    });
    this.host = Fn.select(2, Fn.split("/", api.apiEndpoint));
    const stage = api.addStage("DefaultStage", {
      autoDeploy: true,
      throttle: { rateLimit: props.throttle.requestsPerSecond, burstLimit: props.throttle.burst },
      accessLogSettings: accessLogsOf(this, props, {
        subject: "$context.authorizer.claims.sub",
        authorizerError: "$context.authorizer.error",
      }),
    });
    this.url = `${stage.url.replace(/\/$/, "")}/api/v1`;

    const integration = new HttpLambdaIntegration("ConsoleApi", props.handler);
    for (const operation of consoleOperations) {
      api.addRoutes({
        path: operation.path,
        methods: [HttpMethod[operation.method as keyof typeof HttpMethod]],
        integration,
      });
    }
  }
}

function authorizerFor({ identity, users, clients }: ConsoleHttpApiProps): IHttpRouteAuthorizer {
  if (identity.kind === "oidc") {
    return new HttpJwtAuthorizer("ConsoleIssuer", identity.issuer, { jwtAudience: identity.audiences });
  }
  if (!users) throw new Error("The console's user pool is missing");
  return new HttpUserPoolAuthorizer("ConsoleUsers", users.userPool, {
    userPoolClients: [users.client, ...clients],
  });
}

import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { ConsoleClaims } from "../../functions/core/identity/principal.js";
import { consoleOperations } from "../../functions/shared/console-openapi.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { type SynthesizedBeacon, synthesized } from "./assembly.js";
import { beaconVariants } from "./variants.js";

let prod: SynthesizedBeacon;
let external: SynthesizedBeacon;

const EXTERNAL_CA = beaconVariants.devExternalIdentity.context.agentCaSecretArn;

beforeAll(() => {
  prod = synthesized("prod");
  external = synthesized("devExternalIdentity");
});

const consoleFunction = (beacon: SynthesizedBeacon) => {
  const [entry] = Object.entries(beacon.statelessTemplate.findResources("AWS::Lambda::Function")).filter(
    ([id]) => id.startsWith("ConsoleApiFunction"),
  );
  expect(entry).toBeDefined();
  return entry as [string, { Properties: { Environment: { Variables: Record<string, unknown> } } }];
};

describe("console-api function", () => {
  it("gets the table, the stream, the cache and the agent CA's secret, and may read that secret", () => {
    const [, resource] = consoleFunction(prod);
    const variables = resource.Properties.Environment.Variables;
    expect(Object.keys(variables)).toEqual(
      expect.arrayContaining([
        EnvNames.tableName,
        EnvNames.streamName,
        EnvNames.redisUrl,
        EnvNames.agentCaSecretArn,
      ]),
    );
    expect(variables).toMatchObject({ POWERTOOLS_SERVICE_NAME: "console-api-prod" });
    prod.statelessTemplate.hasResourceProperties("AWS::IAM::Policy", {
      Roles: [{ Ref: Match.stringLikeRegexp("^ConsoleApiRole") }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: Match.arrayWith(["dynamodb:DeleteItem", "dynamodb:Query"]),
            Resource: Match.arrayWith([
              Match.objectLike({ "Fn::Join": Match.arrayWith([Match.arrayWith(["/index/gsi2"])]) }),
            ]),
          }),
          Match.objectLike({ Action: Match.arrayWith(["kinesis:PutRecords"]) }),
          Match.objectLike({
            Action: Match.arrayWith(["secretsmanager:GetSecretValue"]),
            Resource: { "Fn::ImportValue": Match.stringLikeRegexp("AgentCa") },
          }),
        ]),
      },
    });
  });

  it("sends agents to the agent domain for downloads (UPDATE CONFIGURATION's flow URL)", () => {
    const [, resource] = consoleFunction(external);
    expect(resource.Properties.Environment.Variables[EnvNames.agentApiUrl]).toBe(
      "https://agents.example.org",
    );
  });

  it("uses a CA secret given in context instead of creating one", () => {
    external.statefulTemplate.resourceCountIs("AWS::SecretsManager::Secret", 0);
    const [, resource] = consoleFunction(external);
    expect(resource.Properties.Environment.Variables[EnvNames.agentCaSecretArn]).toBe(EXTERNAL_CA);
    prod.statefulTemplate.resourceCountIs("AWS::SecretsManager::Secret", 1);
  });
});

describe("console HTTP API", () => {
  const consoleApiRef = { Ref: Match.stringLikeRegexp("^ConsoleHttpApi") };

  it("routes every operation of the OpenAPI document to the function, each behind the JWT authorizer", () => {
    const routes = Object.values(
      prod.statelessTemplate.findResources("AWS::ApiGatewayV2::Route", {
        Properties: { ApiId: consoleApiRef },
      }),
    );
    expect(routes.map((route) => route.Properties.RouteKey).sort()).toEqual(
      consoleOperations.map((operation) => operation.routeKey).sort(),
    );
    for (const route of routes) expect(route.Properties.AuthorizationType).toBe("JWT");
  });

  it("trusts the stack's user pool, its console client, the web console's and the CLI's, by default", () => {
    prod.statelessTemplate.hasResourceProperties("AWS::ApiGatewayV2::Authorizer", {
      AuthorizerType: "JWT",
      IdentitySource: ["$request.header.Authorization"],
      JwtConfiguration: {
        Audience: [
          { "Fn::ImportValue": Match.stringLikeRegexp("ConsoleClient") },
          { Ref: Match.stringLikeRegexp("^WebConsoleClient") },
          { Ref: Match.stringLikeRegexp("^CliClient") },
        ],
        Issuer: Match.objectLike({
          "Fn::Join": Match.arrayWith([Match.arrayWith(["https://cognito-idp."])]),
        }),
      },
    });
  });

  it("trusts an external OpenID Connect issuer and its audiences from context, and creates no user pool", () => {
    external.statelessTemplate.hasResourceProperties("AWS::ApiGatewayV2::Authorizer", {
      AuthorizerType: "JWT",
      JwtConfiguration: { Issuer: "https://login.example.org/", Audience: ["beacon-console", "beacon-cli"] },
    });
    external.statefulTemplate.resourceCountIs("AWS::Cognito::UserPool", 0);
  });

  it("throttles its stage for people, not fleets, and logs who called", () => {
    prod.statelessTemplate.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      ApiId: consoleApiRef,
      DefaultRouteSettings: { ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 },
      AccessLogSettings: Match.objectLike({ Format: Match.stringLikeRegexp("authorizer.claims.sub") }),
    });
  });
});

describe("console users", () => {
  const tenant = ConsoleClaims.tenant.replace("custom:", "");
  const role = ConsoleClaims.role.replace("custom:", "");
  const classes = ConsoleClaims.classes.replace("custom:", "");

  it("are created by administrators only, with a tenant fixed for life, a strong password and MFA", () => {
    prod.statefulTemplate.hasResourceProperties("AWS::Cognito::UserPool", {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: "ON",
      Policies: { PasswordPolicy: Match.objectLike({ MinimumLength: 14, RequireSymbols: true }) },
      Schema: Match.arrayWith([
        Match.objectLike({ Name: tenant, Mutable: false, AttributeDataType: "String" }),
        Match.objectLike({ Name: role, Mutable: true, AttributeDataType: "String" }),
        Match.objectLike({ Name: classes, Mutable: true, AttributeDataType: "String" }),
      ]),
    });
  });

  it("cannot write their own tenant, role or classes through the console client", () => {
    const clients = Object.values(prod.statefulTemplate.findResources("AWS::Cognito::UserPoolClient"));
    expect(clients).toHaveLength(1);
    const properties = clients[0]?.Properties as { ReadAttributes: string[]; WriteAttributes: string[] };
    expect(properties.ReadAttributes).toEqual(
      expect.arrayContaining([ConsoleClaims.tenant, ConsoleClaims.role, ConsoleClaims.classes]),
    );
    expect(properties.WriteAttributes.filter((name) => name.startsWith("custom:"))).toEqual([]);
  });
});

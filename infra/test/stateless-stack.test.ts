import { X509Certificate } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Match, type Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { distinguishedName } from "../../functions/core/identity/distinguished-name.js";
import { EnvNames } from "../../functions/shared/env-names.js";
import { repositoryRoot } from "../lib/paths.js";
import { bundleDirectoryOf, type SynthesizedBeacon, synthesized } from "./assembly.js";

let dev: SynthesizedBeacon;
let prod: SynthesizedBeacon;
let prodAlb: SynthesizedBeacon;

beforeAll(() => {
  dev = synthesized("dev");
  prod = synthesized("prod");
  prodAlb = synthesized("prodAlb");
});

type Resource = { Type: string; Properties: Record<string, unknown> };

function onlyResource(template: Template, type: string, properties: object = {}): Resource {
  const found = Object.values(template.findResources(type, { Properties: properties }));
  expect(found).toHaveLength(1);
  return found[0] as Resource;
}

/** One of Beacon's functions, by the id the stack gives it ("AgentApi", "ConsoleApi"). */
function functionOf(template: Template, id: string): Resource {
  const found = Object.entries(template.findResources("AWS::Lambda::Function")).filter(([logicalId]) =>
    logicalId.startsWith(`${id}Function`),
  );
  expect(found).toHaveLength(1);
  return found[0]?.[1] as Resource;
}

const agentApiFunction = (template: Template) => functionOf(template, "AgentApi");

function environmentOf(template: Template, id = "AgentApi"): Record<string, unknown> {
  const { Environment } = functionOf(template, id).Properties as { Environment: { Variables: object } };
  return Environment.Variables as Record<string, unknown>;
}

describe("agent-api function", () => {
  it("runs Node 22 on arm64 from an ESM bundle, with stage-sized memory", () => {
    dev.statelessTemplate.hasResourceProperties("AWS::Lambda::Function", {
      Runtime: "nodejs22.x",
      Architectures: ["arm64"],
      Handler: "index.handler",
      MemorySize: 512,
      TracingConfig: Match.absent(),
    });
    prod.statelessTemplate.hasResourceProperties("AWS::Lambda::Function", {
      Runtime: "nodejs22.x",
      MemorySize: 1024,
    });
  });

  it("is bundled by the local esbuild: minified ES modules, each with its source map, which Node does not read", () => {
    const directory = bundleDirectoryOf(prod, "AgentApiFunction");
    expect(readdirSync(directory).sort()).toEqual(["chunks", "index.mjs", "index.mjs.map"]);
    const chunks = readdirSync(join(directory, "chunks"));
    const chunkModules = chunks.filter((file) => file.endsWith(".mjs"));
    expect(chunkModules.length).toBeGreaterThan(0);
    expect(chunks.sort()).toEqual(chunkModules.flatMap((file) => [file, `${file}.map`]).sort());
    const code = readFileSync(join(directory, "index.mjs"), "utf8");
    expect(code.length).toBeLessThan(2 * 1024 * 1024);
    expect(code.startsWith("import { createRequire } from 'node:module';")).toBe(true);
    expect(code).toContain("//# sourceMappingURL=index.mjs.map");
    const averageLineLength = code.length / code.split("\n").length;
    // Minified: source averages tens of characters a line, minified code hundreds (template literals keep theirs).
    expect(averageLineLength).toBeGreaterThan(400);
    expect(environmentOf(prod.statelessTemplate).NODE_OPTIONS).toBeUndefined();
  });

  it("gets its table, stream and cache through the shared variable names, and Powertools settings", () => {
    const variables = environmentOf(prod.statelessTemplate);
    expect(Object.keys(variables)).toEqual(
      expect.arrayContaining([EnvNames.tableName, EnvNames.streamName, EnvNames.redisUrl]),
    );
    expect(variables).toMatchObject({
      POWERTOOLS_SERVICE_NAME: "agent-api-prod",
      POWERTOOLS_METRICS_NAMESPACE: "Beacon",
      POWERTOOLS_LOG_LEVEL: "WARN",
    });
    const redisUrl = JSON.stringify(variables[EnvNames.redisUrl]);
    expect(redisUrl).toContain("rediss://");
    expect(redisUrl).toContain("?cluster=true");
    const beaconVariables = Object.keys(variables).filter((name) => name.startsWith("BEACON_"));
    expect(Object.values(EnvNames)).toEqual(expect.arrayContaining(beaconVariables));
  });

  it("knows the agent API's public URL, for the flow downloads catch-up sends agents to", () => {
    expect(environmentOf(prod.statelessTemplate)[EnvNames.agentApiUrl]).toBe("https://c2.beacon.example.com");
    expect(environmentOf(prodAlb.statelessTemplate)[EnvNames.agentApiUrl]).toBe(
      "https://c2.beacon.example.com",
    );
  });

  it("takes its log level from context and writes to its own log group with the stage's retention", () => {
    expect(environmentOf(dev.statelessTemplate).POWERTOOLS_LOG_LEVEL).toBe("DEBUG");
    dev.statelessTemplate.hasResourceProperties("AWS::Lambda::Function", {
      LoggingConfig: Match.objectLike({
        LogFormat: "JSON",
        ApplicationLogLevel: "DEBUG",
        SystemLogLevel: "INFO",
      }),
    });
    prod.statelessTemplate.hasResourceProperties("AWS::Lambda::Function", {
      LoggingConfig: Match.objectLike({
        LogFormat: "JSON",
        ApplicationLogLevel: "WARN",
        SystemLogLevel: "WARN",
      }),
    });
    const { LoggingConfig } = agentApiFunction(prod.statelessTemplate).Properties as {
      LoggingConfig: { LogGroup: { Ref: string } };
    };
    const logGroup = prod.statelessTemplate.toJSON().Resources[LoggingConfig.LogGroup.Ref];
    expect(logGroup).toMatchObject({
      Type: "AWS::Logs::LogGroup",
      Properties: { RetentionInDays: 90 },
      DeletionPolicy: "Retain",
    });
  });

  it("sits in the private subnets and is the only client the cache admits", () => {
    const { VpcConfig } = agentApiFunction(dev.statelessTemplate).Properties as {
      VpcConfig: { SubnetIds: unknown[]; SecurityGroupIds: unknown[] };
    };
    const importedSubnets = JSON.stringify(VpcConfig.SubnetIds);
    expect(VpcConfig.SubnetIds).toHaveLength(2);
    expect(importedSubnets).toMatch(/VpcPrivateSubnet1Subnet/);
    expect(importedSubnets).toMatch(/VpcPrivateSubnet2Subnet/);
    dev.statelessTemplate.hasResourceProperties("AWS::EC2::SecurityGroupIngress", {
      IpProtocol: "tcp",
      FromPort: 6379,
      ToPort: 6380,
      GroupId: { "Fn::ImportValue": Match.stringLikeRegexp("CacheSecurityGroup") },
      SourceSecurityGroupId: VpcConfig.SecurityGroupIds[0],
    });
  });

  it("may read and write items of the table and its named indexes, and put records, with no wildcard or scan", () => {
    const policy = onlyResource(prod.statelessTemplate, "AWS::IAM::Policy", {
      Roles: [{ Ref: Match.stringLikeRegexp("^AgentApiRole") }],
    });
    const statements = (policy.Properties as { PolicyDocument: { Statement: Statement[] } }).PolicyDocument
      .Statement;
    const dataStatements = statements.filter((statement) =>
      [statement.Action].flat().some((action) => /^(dynamodb|kinesis):/.test(action)),
    );
    for (const statement of dataStatements) {
      expect([statement.Action].flat().filter((action) => action.includes("*"))).toEqual([]);
      expect(JSON.stringify(statement.Resource)).not.toContain("*");
    }
    expect(dataStatements.flatMap((statement) => [statement.Action].flat())).toEqual(
      expect.arrayContaining([
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:Query",
        "dynamodb:BatchGetItem",
        "kinesis:PutRecord",
        "kinesis:PutRecords",
      ]),
    );
    expect(dataStatements.flatMap((statement) => [statement.Action].flat())).not.toContain("dynamodb:Scan");
    expect(JSON.stringify(dataStatements)).toContain("/index/gsi1");
    const wildcardStatements = statements.filter((statement) => statement.Resource === "*");
    expect(
      wildcardStatements.flatMap((statement) => [statement.Action].flat()).every((a) => a.startsWith("ec2:")),
    ).toBe(true);
  });
});

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };

/** The S3 actions a function's role allows, each with where and on which condition. */
function s3GrantsOf(
  template: Template,
  id: string,
): { actions: string[]; resource: string; condition?: unknown }[] {
  const policy = onlyResource(template, "AWS::IAM::Policy", {
    Roles: [{ Ref: Match.stringLikeRegexp(`^${id}Role`) }],
  });
  const statements = (policy.Properties as { PolicyDocument: { Statement: Statement[] } }).PolicyDocument
    .Statement;
  return statements
    .filter((statement) => [statement.Action].flat().some((action) => action.startsWith("s3:")))
    .map((statement) => ({
      actions: [statement.Action].flat().sort(),
      resource: JSON.stringify(statement.Resource),
      ...(statement.Condition === undefined ? {} : { condition: statement.Condition }),
    }));
}

describe("the assets bucket's grants", () => {
  it("let the console put and delete tenants' assets, under <tenant>/assets/ only, stage uploads in parts under asset-uploads/ only, and read operations' results and debug bundles, under their prefixes only", () => {
    const grants = s3GrantsOf(prod.statelessTemplate, "ConsoleApi");
    expect(grants.map(({ actions }) => actions)).toEqual([
      ["s3:DeleteObject", "s3:PutObject"],
      [
        "s3:AbortMultipartUpload",
        "s3:DeleteObject",
        "s3:GetObject",
        "s3:ListMultipartUploadParts",
        "s3:PutObject",
      ],
      ["s3:GetObject"],
      ["s3:ListBucket"],
      ["s3:ListBucket"],
    ]);
    expect(grants[0]?.resource).toContain("/*/assets/*");
    expect(grants[1]?.resource).toContain("/asset-uploads/*");
    expect(grants[1]?.resource).not.toContain("/*/assets/*");
    expect(grants[2]?.resource).toContain("/operation-results/*");
    expect(grants[2]?.resource).toContain("/debug-bundles/*");
    expect(grants[3]?.condition).toEqual({ StringLike: { "s3:prefix": "operation-results/*" } });
    expect(grants[4]?.condition).toEqual({ StringLike: { "s3:prefix": "debug-bundles/*" } });
    expect(environmentOf(prod.statelessTemplate, "ConsoleApi")[EnvNames.assetBucket]).toBeDefined();
  });

  it("let the agent API read tenants' assets, list the bucket so that a missing one answers 404, and only put operations' results and, behind the HTTP API, debug bundles", () => {
    const grants = s3GrantsOf(prod.statelessTemplate, "AgentApi");
    expect(grants.map(({ actions }) => actions)).toEqual([
      ["s3:GetObject"],
      ["s3:ListBucket"],
      // A refused bundle's multipart upload is aborted, so that nothing of it is kept.
      ["s3:AbortMultipartUpload", "s3:PutObject"],
    ]);
    expect(grants[0]?.resource).toContain("/*/assets/*");
    expect(grants[1]?.resource).not.toContain("*");
    expect(grants[2]?.resource).toContain("/operation-results/*");
    expect(grants[2]?.resource).toContain("/debug-bundles/*");
    const environment = environmentOf(prod.statelessTemplate, "AgentApi");
    expect(environment[EnvNames.assetBucket]).toBeDefined();
    expect(environment[EnvNames.operationResultDays]).toBe("7");
    expect(environment[EnvNames.debugBundleDays]).toBe("1");
    // Behind the ALB the agent service takes bundles: the function may not put one.
    const behindAlb = s3GrantsOf(prodAlb.statelessTemplate, "AgentApi");
    expect(behindAlb[2]?.resource).not.toContain("/debug-bundles/*");
  });

  it("let the sweeper read debug bundles, which adoptions read their flow out of, and nothing else of the assets", () => {
    const grants = s3GrantsOf(prod.statelessTemplate, "Sweeper").filter(({ resource }) =>
      resource.includes("AssetsArn"),
    );
    expect(grants.map(({ actions }) => actions)).toEqual([["s3:GetObject"], ["s3:ListBucket"]]);
    expect(grants[0]?.resource).toContain("/debug-bundles/*");
    expect(grants[0]?.resource).not.toContain("/operation-results/*");
    expect(grants[1]?.condition).toEqual({ StringLike: { "s3:prefix": "debug-bundles/*" } });
    expect(environmentOf(prod.statelessTemplate, "Sweeper")[EnvNames.assetBucket]).toBeDefined();
  });
});

describe("the secrets of sensitive parameters", () => {
  /** The secret-store actions a function's role allows, each with where. */
  function secretGrantsOf(template: Template, id: string) {
    const policy = onlyResource(template, "AWS::IAM::Policy", {
      Roles: [{ Ref: Match.stringLikeRegexp(`^${id}Role`) }],
    });
    return (
      policy.Properties as { PolicyDocument: { Statement: Statement[] } }
    ).PolicyDocument.Statement.filter((statement) =>
      [statement.Action].flat().some((action) => /^(secretsmanager|ssm|kms):/.test(action)),
    ).map((statement) => ({
      actions: [statement.Action].flat(),
      resource: JSON.stringify(statement.Resource),
    }));
  }

  it("may be read by the agent API below beacon/ in Secrets Manager and /beacon/ in Parameter Store only, in its own account", () => {
    for (const template of [prod.statelessTemplate, prodAlb.statelessTemplate]) {
      const grants = secretGrantsOf(template, "AgentApi");
      expect(grants.map(({ actions }) => actions)).toEqual([
        ["secretsmanager:GetSecretValue"],
        ["ssm:GetParameter"],
      ]);
      expect(grants[0]?.resource).toMatch(
        /:secretsmanager:.*AWS::Region.*AWS::AccountId.*:secret:beacon\/\*"/,
      );
      expect(grants[1]?.resource).toMatch(/:ssm:.*AWS::Region.*AWS::AccountId.*:parameter\/beacon\/\*"/);
    }
  });

  it("are read by no other function", () => {
    for (const id of ["Sweeper", "StreamConsumer"])
      expect(secretGrantsOf(prod.statelessTemplate, id), id).toEqual([]);
  });
});

describe("the event archive's grants", () => {
  it("let the sweeper read the archive's objects and list its events/ prefix, where its relays look, and never write", () => {
    const grants = s3GrantsOf(prod.statelessTemplate, "Sweeper").filter(({ resource }) =>
      resource.includes("EventArchiveArn"),
    );
    expect(grants.map(({ actions }) => actions)).toEqual([["s3:GetObject"], ["s3:ListBucket"]]);
    expect(grants[0]?.resource).toContain("/events/*");
    expect(grants[1]?.condition).toEqual({ StringLike: { "s3:prefix": "events/*" } });
    expect(environmentOf(prod.statelessTemplate, "Sweeper")[EnvNames.archiveBucket]).toBeDefined();
  });
});

describe("the agents' truststore and the agent API's CA bindings", () => {
  const fixture = (name: string) => readFileSync(join(repositoryRoot, "infra", "fixtures", name), "utf8");
  const subjectOf = (pem: string) => distinguishedName(new X509Certificate(pem).subject);
  const uploadedBundle = (template: Template) =>
    JSON.stringify(template.findResources("Custom::AWS", { Properties: { Create: Match.anyValue() } }));

  it("come from the same CAs: Beacon's own may speak for every tenant", () => {
    const beaconCa = fixture("example-agent-ca.pem");
    expect(JSON.parse(environmentOf(dev.statelessTemplate)[EnvNames.agentCaBindings] as string)).toEqual({
      [subjectOf(beaconCa)]: "*",
    });
  });

  it("add a tenant's own CA to the truststore, bound to that tenant alone", () => {
    const external = synthesized("devExternalIdentity");
    const [beaconCa, acmeCa] = [fixture("example-agent-ca.pem"), fixture("example-acme-ca.pem")];
    expect(JSON.parse(environmentOf(external.statelessTemplate)[EnvNames.agentCaBindings] as string)).toEqual(
      {
        [subjectOf(beaconCa)]: "*",
        [subjectOf(acmeCa)]: ["acme"],
      },
    );
    const uploaded = uploadedBundle(external.statelessTemplate);
    for (const pem of [beaconCa, acmeCa]) {
      const body = pem.split("\n")[1] as string;
      expect(uploaded).toContain(body);
    }
    expect(uploadedBundle(dev.statelessTemplate)).not.toContain(acmeCa.split("\n")[1]);
  });

  it("tell the console API and the sweeper Beacon's CAs by fingerprint, and no tenant's, so a retired CA's certificates are retired", () => {
    const external = synthesized("devExternalIdentity");
    const beaconCa = new X509Certificate(fixture("example-agent-ca.pem")).fingerprint256;
    for (const id of ["ConsoleApi", "Sweeper"]) {
      expect(environmentOf(external.statelessTemplate, id)[EnvNames.trustedCaFingerprints]).toBe(beaconCa);
    }
    expect(environmentOf(external.statelessTemplate)[EnvNames.trustedCaFingerprints]).toBeUndefined();
  });
});

describe("agent HTTP API", () => {
  it("is reachable only through the mutual TLS custom domain: the default endpoint is disabled", () => {
    const template = prod.statelessTemplate;
    template.hasResourceProperties("AWS::ApiGatewayV2::Api", {
      ProtocolType: "HTTP",
      DisableExecuteApiEndpoint: true,
    });
    template.hasResourceProperties("AWS::ApiGatewayV2::DomainName", {
      DomainName: "c2.beacon.example.com",
      DomainNameConfigurations: [Match.objectLike({ SecurityPolicy: "TLS_1_2", EndpointType: "REGIONAL" })],
      MutualTlsAuthentication: {
        TruststoreUri: {
          "Fn::Join": [
            "",
            ["s3://", { Ref: Match.stringLikeRegexp("^AgentTruststoreBucket") }, Match.anyValue()],
          ],
        },
      },
    });
    // The HTTP API's at the domain's root, and the asset downloads' REST API's below it.
    template.resourceCountIs("AWS::ApiGatewayV2::ApiMapping", 2);
  });

  it("reads the truststore only after the CA bundle is in the bucket, under a key named by its hash", () => {
    const domain = Object.values(prod.statelessTemplate.findResources("AWS::ApiGatewayV2::DomainName"))[0];
    expect(domain?.DependsOn).toEqual(
      expect.arrayContaining([expect.stringMatching(/^AgentTruststoreUpload/)]),
    );
    const truststoreUri = JSON.stringify(domain?.Properties.MutualTlsAuthentication);
    expect(truststoreUri).toMatch(/\/agent-ca-[0-9a-f]{16}\.pem/);
  });

  it("routes only the agent C2 endpoints but asset downloads, the incumbent C2 server's spelling of two, and the debug bundle upload to the agent-api function", () => {
    const routes = prod.statelessTemplate.findResources("AWS::ApiGatewayV2::Route", {
      Properties: { ApiId: { Ref: Match.stringLikeRegexp("^AgentHttpApi") } },
    });
    // No $default route: API Gateway answers any other request 404 without invoking anything.
    expect(Object.values(routes).map((route) => route.Properties.RouteKey)).toEqual([
      "POST /c2/api/heartbeat",
      "POST /efm/api/c2-protocol/heartbeat",
      "POST /c2/api/acknowledge",
      "POST /efm/api/c2-protocol/acknowledge",
      "GET /c2/api/flows/{flowId}/content",
      "GET /c2/api/agents/{agentId}/flows/{flowId}/content",
      "GET /c2/api/agents/{agentId}/rollouts/{rolloutId}/flows/{flowId}/content",
      "POST /c2/debug-bundles/{operationId}",
    ]);
    prod.statelessTemplate.hasResourceProperties("AWS::ApiGatewayV2::Integration", {
      IntegrationType: "AWS_PROXY",
      PayloadFormatVersion: "2.0",
    });
  });

  it("throttles and logs access on its stage", () => {
    prod.statelessTemplate.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      StageName: "$default",
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 5_000, ThrottlingBurstLimit: 5_000 },
      AccessLogSettings: Match.objectLike({ Format: Match.stringLikeRegexp("clientCert") }),
    });
  });

  it("streams asset downloads from a function through a REST API mapped below the same domain, at the same URLs", () => {
    const template = prod.statelessTemplate;
    template.hasResourceProperties("AWS::ApiGateway::RestApi", {
      DisableExecuteApiEndpoint: true,
      EndpointConfiguration: { Types: ["REGIONAL"] },
    });
    template.hasResourceProperties("AWS::ApiGateway::Resource", { PathPart: "{assetId}" });
    template.hasResourceProperties("AWS::ApiGateway::Resource", { PathPart: "content" });
    template.hasResourceProperties("AWS::ApiGateway::Method", {
      HttpMethod: "GET",
      Integration: Match.objectLike({
        Type: "AWS_PROXY",
        ResponseTransferMode: "STREAM",
        TimeoutInMillis: 180_000,
        Uri: Match.objectLike({
          "Fn::Join": Match.arrayWith([
            Match.arrayWith([Match.stringLikeRegexp("response-streaming-invocations")]),
          ]),
        }),
      }),
    });
    template.hasResourceProperties("AWS::ApiGatewayV2::ApiMapping", {
      ApiMappingKey: "c2/api/assets",
      ApiId: { Ref: Match.stringLikeRegexp("^AgentHttpApiAssetStreamApi") },
      DomainName: { Ref: Match.stringLikeRegexp("^AgentHttpApiDomain") },
    });
    template.hasResourceProperties("AWS::ApiGateway::Stage", {
      MethodSettings: Match.arrayWith([
        Match.objectLike({ ThrottlingRateLimit: 5_000, ThrottlingBurstLimit: 5_000 }),
      ]),
      AccessLogSetting: Match.objectLike({ Format: Match.stringLikeRegexp("clientCert") }),
    });
  });

  it("streams with a function of its own, which reads the assets and nothing else of the bucket", () => {
    const functions = prod.statelessTemplate.findResources("AWS::Lambda::Function", {
      Properties: { Timeout: 180 },
    });
    expect(Object.keys(functions)).toEqual([expect.stringMatching(/^AgentAssetStream/)]);
    const policies = Object.entries(prod.statelessTemplate.findResources("AWS::IAM::Policy")).filter(([id]) =>
      id.startsWith("AgentAssetStream"),
    );
    const actions = JSON.stringify(policies.map(([, policy]) => policy.Properties.PolicyDocument));
    expect(actions).toContain("s3:GetObject");
    expect(actions).not.toMatch(/s3:PutObject|secretsmanager:|ssm:/);
  });

  it("leaves no warning at synthesis", () => {
    expect(prod.stateless.findMetadataByType("aws:cdk:warning")).toEqual([]);
  });

  it("is absent when the load balancer is the ingress", () => {
    // The console's HTTP API is the only one left.
    prodAlb.statelessTemplate.resourceCountIs("AWS::ApiGatewayV2::Api", 1);
    prodAlb.statelessTemplate.resourceCountIs("AWS::ApiGatewayV2::DomainName", 0);
    prod.statelessTemplate.resourceCountIs("AWS::ElasticLoadBalancingV2::LoadBalancer", 0);
  });
});

describe("agent load balancer", () => {
  type Listener = { Properties: { Port: number } & Record<string, unknown> };
  /** The load balancer's listeners, by port. */
  const listenersOf = (template: Template) =>
    Object.entries(
      template.findResources("AWS::ElasticLoadBalancingV2::Listener") as Record<string, Listener>,
    ).sort(([, one], [, other]) => one.Properties.Port - other.Properties.Port);

  it("faces the internet over HTTPS with mutual TLS in verify mode against the truststore, on each port given", () => {
    const template = prodAlb.statelessTemplate;
    template.hasResourceProperties("AWS::ElasticLoadBalancingV2::LoadBalancer", {
      Scheme: "internet-facing",
      LoadBalancerAttributes: Match.arrayWith([
        { Key: "deletion_protection.enabled", Value: "true" },
        { Key: "routing.http.drop_invalid_header_fields.enabled", Value: "true" },
      ]),
    });
    // Every listener speaks HTTPS: none takes an agent over plain HTTP.
    const listeners = listenersOf(template);
    expect(listeners.map(([, listener]) => listener.Properties.Port)).toEqual([443, 10090]);
    for (const [, listener] of listeners)
      expect(listener.Properties).toMatchObject({
        Protocol: "HTTPS",
        SslPolicy: expect.stringMatching(/^ELBSecurityPolicy-TLS13/),
        MutualAuthentication: {
          Mode: "verify",
          IgnoreClientCertificateExpiry: false,
          TrustStoreArn: { "Fn::GetAtt": [expect.stringMatching(/TrustStore/), "TrustStoreArn"] },
        },
        DefaultActions: [expect.objectContaining({ Type: "fixed-response" })],
      });
    template.resourceCountIs("AWS::ElasticLoadBalancingV2::TrustStore", 1);
    template.hasResource("AWS::ElasticLoadBalancingV2::TrustStore", {
      Properties: {
        CaCertificatesBundleS3Bucket: { Ref: Match.stringLikeRegexp("^AgentTruststoreBucket") },
        CaCertificatesBundleS3Key: Match.stringLikeRegexp("^agent-ca-[0-9a-f]{16}\\.pem$"),
        Name: Match.anyValue(),
        Tags: Match.anyValue(),
      },
      DependsOn: Match.arrayWith([Match.stringLikeRegexp("^AgentTruststoreUpload")]),
    });
    // Its security group admits those ports from anywhere, and nothing else.
    const group = onlyResource(template, "AWS::EC2::SecurityGroup", {
      GroupDescription: Match.stringLikeRegexp("AgentLoadBalancer"),
    });
    expect(
      (group.Properties.SecurityGroupIngress as { CidrIp: string; FromPort: number; ToPort: number }[]).map(
        ({ CidrIp, FromPort, ToPort }) => [CidrIp, FromPort, ToPort],
      ),
    ).toEqual([
      ["0.0.0.0/0", 443, 443],
      ["0.0.0.0/0", 10090, 10090],
    ]);
  });

  it("listens on 443 alone unless told otherwise", () => {
    const fargate = synthesized("prodFargate").statelessTemplate;
    expect(listenersOf(fargate).map(([, listener]) => listener.Properties.Port)).toEqual([443]);
  });

  it("forwards only the agent C2 endpoints, each route at its paths with its method, to the agent-api function, and debug bundles and asset downloads to a service, on every listener", () => {
    const template = prodAlb.statelessTemplate;
    const allRules = Object.values(template.findResources("AWS::ElasticLoadBalancingV2::ListenerRule"));
    const listeners = listenersOf(template);
    for (const [logicalId] of listeners) {
      const [bundles, assets, ...rules] = allRules
        .filter((rule) => rule.Properties.ListenerArn.Ref === logicalId)
        .sort((one, other) => one.Properties.Priority - other.Properties.Priority);
      expect([bundles?.Properties.Priority, bundles?.Properties.Conditions]).toEqual([
        5,
        [
          { Field: "path-pattern", PathPatternConfig: { Values: ["/c2/debug-bundles/*"] } },
          { Field: "http-request-method", HttpRequestMethodConfig: { Values: ["POST"] } },
        ],
      ]);
      // Assets stream from the service: a Lambda target answers with 1 MB at most.
      expect([assets?.Properties.Priority, assets?.Properties.Conditions]).toEqual([
        6,
        [
          { Field: "path-pattern", PathPatternConfig: { Values: ["/c2/api/assets/*/content"] } },
          { Field: "http-request-method", HttpRequestMethodConfig: { Values: ["GET"] } },
        ],
      ]);
      for (const streamed of [bundles, assets])
        expect(streamed?.Properties.Actions).toEqual([
          expect.objectContaining({
            Type: "forward",
            TargetGroupArn: { Ref: expect.stringMatching(/^DebugBundleServiceTargets/) },
          }),
        ]);
      const routeRule = (priority: number, method: string, paths: string[]) => [
        priority,
        [
          { Field: "path-pattern", PathPatternConfig: { Values: paths } },
          { Field: "http-request-method", HttpRequestMethodConfig: { Values: [method] } },
        ],
      ];
      expect(rules.map((rule) => [rule.Properties.Priority, rule.Properties.Conditions])).toEqual([
        routeRule(10, "POST", ["/c2/api/heartbeat", "/efm/api/c2-protocol/heartbeat"]),
        routeRule(20, "POST", ["/c2/api/acknowledge", "/efm/api/c2-protocol/acknowledge"]),
        routeRule(30, "GET", ["/c2/api/flows/*/content"]),
        routeRule(40, "GET", ["/c2/api/agents/*/flows/*/content"]),
        routeRule(60, "GET", ["/c2/api/agents/*/rollouts/*/flows/*/content"]),
      ]);
      // Every rule forwards to the one target group of the function.
      const forwarded = rules.map((rule) => JSON.stringify(rule.Properties.Actions));
      expect(new Set(forwarded).size).toBe(1);
      expect(forwarded[0]).toContain("AgentLoadBalancerAgentApiTargets");
    }
    // The listeners' rules are the same, rule for rule.
    expect(allRules).toHaveLength(7 * listeners.length);
    template.resourceCountIs("AWS::ElasticLoadBalancingV2::TargetGroup", 2);
    template.hasResourceProperties("AWS::ElasticLoadBalancingV2::TargetGroup", {
      TargetType: "lambda",
      Targets: [{ Id: { "Fn::GetAtt": [Match.stringLikeRegexp("^AgentApiFunction"), "Arn"] } }],
    });
  });
});

describe("observability", () => {
  it("alarms on the ingress, the functions and their degradations, on one dashboard", () => {
    // Behind the load balancer, the debug bundles' service adds its 5xx, CPU and memory; behind API Gateway, the
    // asset stream's function its errors, throttles and the six degradations of its metered downloads' events.
    for (const [{ statelessTemplate }, alarms] of [
      [prod, 54],
      [prodAlb, 49],
    ] as const) {
      statelessTemplate.resourceCountIs("AWS::CloudWatch::Alarm", alarms);
      statelessTemplate.resourceCountIs("AWS::CloudWatch::Dashboard", 1);
    }
    const alarms = Object.values(prod.statelessTemplate.findResources("AWS::CloudWatch::Alarm"));
    const watched = alarms.map((alarm) => alarm.Properties.MetricName ?? alarm.Properties.Metrics[0].Label);
    expect(watched.sort()).toEqual(
      [
        "Agent 5xx (% of requests)",
        "Agent p99 latency (ms)",
        "ApproximateNumberOfMessagesVisible",
        "AuditWriteFailed",
        "ConsumerFailures",
        "Errors",
        "EventsRefused",
        "IteratorAge",
        "Throttles",
        "CacheFallbacks",
        "CacheFallbacks",
        "CacheFallbacks",
        "Errors",
        "Errors",
        "Errors",
        "EventsHeld",
        "EventsHeld",
        "EventsHeld",
        "EventsHeldInOutbox",
        "EventsHeldInOutbox",
        "EventsHeldInOutbox",
        "EventsLost",
        "EventsLost",
        "EventsLost",
        "HeartbeatsFailed",
        "OperationResultsLost",
        "OutboxClearFailures",
        "OutboxClearFailures",
        "OutboxClearFailures",
        "OutboxRelayed",
        "StreamFailures",
        "StreamFailures",
        "StreamFailures",
        "Throttles",
        "Throttles",
        "Throttles",
        // The asset stream's function, and the degradations of its metered downloads' events.
        "Errors",
        "Throttles",
        "CacheFallbacks",
        "EventsHeld",
        "EventsHeldInOutbox",
        "EventsLost",
        "OutboxClearFailures",
        "StreamFailures",
        // The webhook dispatcher's function and stream, the stream consumer's stream, and their deliveries.
        "Errors",
        "Throttles",
        "EventsLost",
        "EventsLost",
        "StreamFailures",
        "StreamFailures",
        "WebhookFailures",
        "WebhooksDisabled",
        "WebhooksDisabled",
        // The stream consumer's notifications its EventBridge bus still refused after retries.
        "NotificationsRefusedByBus",
      ].sort(),
    );
  });

  it("alarms on cache fallbacks, stream failures, lost events and failed heartbeats by the function's service dimension alone", () => {
    for (const metricName of [
      "CacheFallbacks",
      "StreamFailures",
      "EventsLost",
      "HeartbeatsFailed",
      "OutboxClearFailures",
    ]) {
      prod.statelessTemplate.hasResourceProperties("AWS::CloudWatch::Alarm", {
        Namespace: "Beacon",
        MetricName: metricName,
        Dimensions: [
          { Name: "service", Value: environmentOf(prod.statelessTemplate).POWERTOOLS_SERVICE_NAME },
        ],
        Statistic: "Sum",
      });
    }
  });

  it("alarms on the first console change whose audit record was not written, and keeps records the stage's retention", () => {
    prod.statelessTemplate.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Namespace: "Beacon",
      MetricName: "AuditWriteFailed",
      Dimensions: [
        {
          Name: "service",
          Value: environmentOf(prod.statelessTemplate, "ConsoleApi").POWERTOOLS_SERVICE_NAME,
        },
      ],
      Statistic: "Sum",
      Threshold: 1,
      DatapointsToAlarm: 1,
    });
    expect(environmentOf(prod.statelessTemplate, "ConsoleApi")[EnvNames.auditRetentionDays]).toBe("400");
    expect(environmentOf(dev.statelessTemplate, "ConsoleApi")[EnvNames.auditRetentionDays]).toBe("30");
  });

  it("prices usage statements as the deployment runs the agent API", () => {
    const prodEnvironment = environmentOf(prod.statelessTemplate, "ConsoleApi");
    expect(prodEnvironment[EnvNames.usagePricedOption]).toBe("httpApiLambda");
    expect(prodEnvironment[EnvNames.usageUnitPrices]).toBeUndefined();
    const fargate = synthesized("prodFargate").statelessTemplate;
    expect(environmentOf(fargate, "ConsoleApi")[EnvNames.usagePricedOption]).toBe("albFargate");
  });

  it("measures the 5xx rate and p99 latency of whichever ingress is deployed", () => {
    prod.statelessTemplate.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Metrics: Match.arrayWith([
        Match.objectLike({
          MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: "5xx" }) }),
        }),
      ]),
    });
    prodAlb.statelessTemplate.hasResourceProperties("AWS::CloudWatch::Alarm", {
      Metrics: Match.arrayWith([
        Match.objectLike({
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({ MetricName: "TargetResponseTime" }),
            Stat: "p99",
          }),
        }),
      ]),
    });
  });
});

describe("event subscriptions on AWS", () => {
  it("let no function deliver to a private host or trust a CA besides the public ones", () => {
    for (const template of [dev.statelessTemplate, prod.statelessTemplate]) {
      for (const resource of Object.values(template.findResources("AWS::Lambda::Function"))) {
        const variables = (resource.Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
        expect(variables).not.toHaveProperty(EnvNames.webhookAllowedHosts);
        expect(variables).not.toHaveProperty(EnvNames.webhookCaFile);
      }
    }
  });
});

describe("stacks", () => {
  it("deploys the stateless stack after the stateful one", () => {
    expect(prod.stateless.dependencies).toContain(prod.stateful);
  });
});

describe("the stream consumer's event source mapping", () => {
  it("gives each shard's batches one at a time, in order, and reports partial failures: fleet history and usage count once by it", () => {
    for (const variant of [dev, prod]) {
      variant.statelessTemplate.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
        FunctionName: Match.objectLike({ Ref: Match.stringLikeRegexp("^StreamConsumerFunction") }),
        ParallelizationFactor: 1,
        BisectBatchOnFunctionError: true,
        FunctionResponseTypes: ["ReportBatchItemFailures"],
      });
    }
  });
});

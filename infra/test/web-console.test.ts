import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runInNewContext } from "node:vm";
import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import {
  API_PREFIX,
  ASSETS_PREFIX,
  CacheControl,
  CLI_SIGN_IN_REDIRECT,
  contentSecurityPolicy,
  SECURITY_HEADERS,
  SIGN_IN_CALLBACK_PATH,
  type WebConsoleConfig,
} from "../../web/serving.js";
import { SPA_FALLBACK_FUNCTION } from "../lib/web-console.js";
import { type SynthesizedBeacon, synthesized } from "./assembly.js";
import { beaconVariants } from "./variants.js";

let dev: SynthesizedBeacon;
let prod: SynthesizedBeacon;
let external: SynthesizedBeacon;

beforeAll(() => {
  dev = synthesized("dev");
  prod = synthesized("prod");
  external = synthesized("devExternalIdentity");
});

type Resource = { Properties: Record<string, unknown> };
const only = (beacon: SynthesizedBeacon, type: string): [string, Resource] => {
  const found = Object.entries(beacon.statelessTemplate.findResources(type)) as [string, Resource][];
  expect(found, type).toHaveLength(1);
  return found[0] as [string, Resource];
};
const distributionConfig = (beacon: SynthesizedBeacon) =>
  only(beacon, "AWS::CloudFront::Distribution")[1].Properties.DistributionConfig as {
    CacheBehaviors: { PathPattern: string; TargetOriginId: string; ResponseHeadersPolicyId: unknown }[];
    DefaultCacheBehavior: Record<string, unknown>;
    Origins: { Id: string; DomainName: unknown; S3OriginConfig?: unknown; CustomOriginConfig?: unknown }[];
    [key: string]: unknown;
  };

/** The files the deployment copies into the bucket, as the cloud assembly holds them, by source. */
function deployedSources(beacon: SynthesizedBeacon): string[] {
  const [, deployment] = only(beacon, "Custom::CDKBucketDeployment");
  return (deployment.Properties.SourceObjectKeys as string[]).map((key) =>
    join(beacon.assembly.directory, `asset.${key.replace(/\.zip$/, "")}`),
  );
}

function deployedConfig(beacon: SynthesizedBeacon): WebConsoleConfig {
  const withConfig = deployedSources(beacon).find((dir) => existsSync(join(dir, "config.json")));
  if (withConfig === undefined) throw new Error("no config.json among the deployed sources");
  return JSON.parse(readFileSync(join(withConfig, "config.json"), "utf8"));
}

const resourceNamed = (beacon: SynthesizedBeacon, type: string, prefix: string): [string, Resource] => {
  const found = Object.entries(beacon.statelessTemplate.findResources(type)).filter(([id]) =>
    id.startsWith(prefix),
  ) as [string, Resource][];
  expect(found, `${type} ${prefix}*`).toHaveLength(1);
  return found[0] as [string, Resource];
};

describe("the web console's bucket", () => {
  it("is private and encrypted, takes TLS only, and only the distribution may read it", () => {
    for (const beacon of [dev, prod]) {
      const [siteId, site] = resourceNamed(beacon, "AWS::S3::Bucket", "WebConsoleSite");
      expect(site.Properties).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }],
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: "BucketOwnerEnforced" }] },
      });
      beacon.statelessTemplate.hasResourceProperties("AWS::S3::BucketPolicy", {
        Bucket: { Ref: siteId },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: "Deny",
              Principal: { AWS: "*" },
              Condition: { Bool: { "aws:SecureTransport": "false" } },
            }),
            Match.objectLike({
              Effect: "Allow",
              Action: "s3:GetObject",
              Principal: { Service: "cloudfront.amazonaws.com" },
              Condition: {
                StringEquals: { "AWS:SourceArn": Match.objectLike({ "Fn::Join": Match.anyValue() }) },
              },
            }),
          ]),
        },
      });
    }
  });
});

describe("the web console's distribution", () => {
  it("serves the bucket through origin access control, HTTPS only, with access logs", () => {
    const config = distributionConfig(dev);
    const [oacId] = only(dev, "AWS::CloudFront::OriginAccessControl");
    const siteOrigin = config.Origins.find((origin) => origin.S3OriginConfig !== undefined);
    expect(siteOrigin).toMatchObject({ OriginAccessControlId: { "Fn::GetAtt": [oacId, "Id"] } });
    expect(config.DefaultCacheBehavior).toMatchObject({
      ViewerProtocolPolicy: "redirect-to-https",
      AllowedMethods: ["GET", "HEAD"],
    });
    expect(config).toMatchObject({
      DefaultRootObject: "index.html",
      HttpVersion: "http2and3",
    });
    expect(config.Logging).toMatchObject({
      Bucket: { "Fn::GetAtt": [expect.stringMatching(/^WebConsoleAccessLogs/), "RegionalDomainName"] },
    });
    const [, logs] = resourceNamed(dev, "AWS::S3::Bucket", "WebConsoleAccessLogs");
    expect(logs.Properties).toMatchObject({
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: 7, Status: "Enabled" }] },
    });
  });

  it("answers on a domain of its own with TLS 1.2 and later when one is configured", () => {
    expect(distributionConfig(prod)).toMatchObject({
      Aliases: [beaconVariants.prod.context.consoleDomainName],
      ViewerCertificate: {
        AcmCertificateArn: beaconVariants.prod.context.consoleCertificateArn,
        MinimumProtocolVersion: "TLSv1.2_2021",
        SslSupportMethod: "sni-only",
      },
    });
    expect(distributionConfig(dev).Aliases).toBeUndefined();
  });

  it("passes /api/ to the console API and the token endpoint to the identity provider, uncached", () => {
    const config = distributionConfig(dev);
    const behavior = (pattern: string) => {
      const found = config.CacheBehaviors.find((candidate) => candidate.PathPattern === pattern);
      expect(found, pattern).toBeDefined();
      return found as (typeof config.CacheBehaviors)[number] & Record<string, unknown>;
    };
    const origin = (pattern: string) => config.Origins.find((o) => o.Id === behavior(pattern).TargetOriginId);
    const cachingDisabled = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad";
    const allViewerExceptHost = "b689b0a8-53d0-40ab-baf2-68738e2966ac";
    for (const pattern of [`${API_PREFIX}*`, "/oauth2/token"]) {
      expect(behavior(pattern)).toMatchObject({
        ViewerProtocolPolicy: "https-only",
        CachePolicyId: cachingDisabled,
        OriginRequestPolicyId: allViewerExceptHost,
        AllowedMethods: expect.arrayContaining(["POST", "DELETE"]),
      });
      expect(origin(pattern)?.CustomOriginConfig).toMatchObject({
        OriginProtocolPolicy: "https-only",
        OriginSSLProtocols: ["TLSv1.2"],
      });
    }
    expect(JSON.stringify(origin(`${API_PREFIX}*`)?.DomainName)).toMatch(/ConsoleHttpApi.*ApiEndpoint/);
    expect(JSON.stringify(origin("/oauth2/token")?.DomainName)).toMatch(/SignInDomain.*amazoncognito\.com/);
    // An external issuer's token endpoint, at its own path.
    const externalConfig = distributionConfig(external);
    const token = externalConfig.CacheBehaviors.find((b) => b.PathPattern === "/oauth/v2/token");
    expect(externalConfig.Origins.find((o) => o.Id === token?.TargetOriginId)?.DomainName).toBe(
      "login.example.org",
    );
  });

  it("sends the local web server's security headers, no-cache on pages and immutable hashed assets", () => {
    const config = distributionConfig(dev);
    const policies = dev.statelessTemplate.findResources("AWS::CloudFront::ResponseHeadersPolicy");
    const policyOf = (behavior: { ResponseHeadersPolicyId: unknown }) => {
      const { Ref } = behavior.ResponseHeadersPolicyId as { Ref: string };
      return (policies[Ref] as Resource).Properties.ResponseHeadersPolicyConfig as {
        SecurityHeadersConfig: Record<string, Record<string, unknown>>;
        CustomHeadersConfig: { Items: { Header: string; Value: string }[] };
      };
    };
    const sent = (behavior: { ResponseHeadersPolicyId: unknown }): Record<string, unknown> => {
      const policy = policyOf(behavior);
      const security = policy.SecurityHeadersConfig;
      return {
        "content-security-policy": security.ContentSecurityPolicy?.ContentSecurityPolicy,
        "x-content-type-options": security.ContentTypeOptions ? "nosniff" : undefined,
        "x-frame-options": security.FrameOptions?.FrameOption,
        "referrer-policy": security.ReferrerPolicy?.ReferrerPolicy,
        "strict-transport-security": security.StrictTransportSecurity?.AccessControlMaxAgeSec,
        ...Object.fromEntries(policy.CustomHeadersConfig.Items.map(({ Header, Value }) => [Header, Value])),
      };
    };
    const assets = config.CacheBehaviors.find((b) => b.PathPattern === `${ASSETS_PREFIX}*`);
    const api = config.CacheBehaviors.find((b) => b.PathPattern === `${API_PREFIX}*`);
    const page = config.DefaultCacheBehavior as { ResponseHeadersPolicyId: unknown };
    // The page also sends an asset's parts to the assets bucket's regional endpoint: its connect-src names it.
    const [before, bucketHost, after] = (
      sent(page)["content-security-policy"] as { "Fn::Join": [string, [string, unknown, string]] }
    )["Fn::Join"][1];
    expect(JSON.stringify(bucketHost)).toMatch(/Assets.*RegionalDomainName/);
    expect(`${before}bucket.example${after}`).toBe(contentSecurityPolicy("https://bucket.example"));
    expect(sent(page)).toEqual({
      ...SECURITY_HEADERS,
      "content-security-policy": expect.anything(),
      "strict-transport-security": 31_536_000,
      "cache-control": CacheControl.page,
    });
    expect(sent(assets as { ResponseHeadersPolicyId: unknown })).toEqual({
      ...SECURITY_HEADERS,
      "content-security-policy": sent(page)["content-security-policy"],
      "strict-transport-security": 31_536_000,
      "cache-control": CacheControl.assets,
    });
    // The API's replies keep the caching the API asks for.
    expect(sent(api as { ResponseHeadersPolicyId: unknown })["cache-control"]).toBeUndefined();
  });

  it("serves index.html for the app's routes at the edge, and files as they are", () => {
    const [, edgeFunction] = only(dev, "AWS::CloudFront::Function");
    expect(edgeFunction.Properties.FunctionCode).toBe(SPA_FALLBACK_FUNCTION);
    expect(distributionConfig(dev).DefaultCacheBehavior).toMatchObject({
      FunctionAssociations: [{ EventType: "viewer-request" }],
    });
    const rewrite = (uri: string): string =>
      runInNewContext(`${SPA_FALLBACK_FUNCTION}; handler({ request: { uri: ${JSON.stringify(uri)} } }).uri`);
    for (const route of ["/", "/agents", "/agents/edge-1", "/classes/a.b/", SIGN_IN_CALLBACK_PATH]) {
      expect(rewrite(route), route).toBe("/index.html");
    }
    for (const file of ["/index.html", "/config.json", "/assets/index-abc123.js", "/favicon.ico"]) {
      expect(rewrite(file), file).toBe(file);
    }
  });
});

describe("the web console's deployment", () => {
  it("copies the console as npm run web:build builds it, without the build's own files", () => {
    const built = deployedSources(dev).find((dir) => existsSync(join(dir, "index.html")));
    expect(built).toBeDefined();
    const files = readdirSync(built as string, { recursive: true }) as string[];
    expect(files.filter((file) => /^assets\/index-[\w-]+\.js$/.test(file))).toHaveLength(1);
    expect(files.filter((file) => file.startsWith(".") || file.includes("/."))).toEqual([]);
    const index = readFileSync(join(built as string, "index.html"), "utf8");
    expect(index).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js">/);
    expect(index).not.toMatch(/<script>|style=/);
  });

  it("keeps earlier builds' assets and invalidates the distribution's cache", () => {
    const [, deployment] = only(dev, "Custom::CDKBucketDeployment");
    expect(deployment.Properties).toMatchObject({
      Prune: false,
      DistributionPaths: ["/*"],
      DestinationBucketName: { Ref: expect.stringMatching(/^WebConsoleSite/) },
    });
  });

  it("writes the user pool's sign-in for the web client to /config.json", () => {
    const { oauth } = deployedConfig(dev);
    expect(oauth).toMatchObject({
      authorizationEndpoint: expect.stringMatching(/^https:\/\/.+\.amazoncognito\.com\/oauth2\/authorize$/),
      tokenEndpoint: "/oauth2/token",
      scopes: ["openid", "email", "profile"],
      logoutUrl: expect.stringMatching(/\/logout\?client_id=.+&logout_uri=.+\/$/),
    });
    expect(deployedConfig(dev).localSignIn).toBeUndefined();
  });

  it("writes an external issuer's endpoints and client to /config.json", () => {
    const context = beaconVariants.devExternalIdentity.context;
    expect(deployedConfig(external)).toEqual({
      oauth: {
        authorizationEndpoint: context.consoleAuthorizationEndpoint,
        tokenEndpoint: "/oauth/v2/token",
        clientId: "beacon-console",
        issuer: context.consoleIssuer,
        scopes: ["openid"],
        logoutUrl: context.consoleLogoutUrl,
      },
    });
  });
});

/** The user pool's clients in the stack of the console's distribution: the web console's and the CLI's. */
const clientsOf = (beacon: SynthesizedBeacon) =>
  Object.entries(beacon.statelessTemplate.findResources("AWS::Cognito::UserPoolClient")) as [
    string,
    Resource,
  ][];
const webClientOf = (beacon: SynthesizedBeacon) => {
  const found = clientsOf(beacon).filter(([id]) => id.startsWith("WebConsoleClient"));
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
};
const cliClientOf = (beacon: SynthesizedBeacon) => {
  const found = clientsOf(beacon).filter(([id]) => id.startsWith("CliClient"));
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
};

describe("the CLI's app client", () => {
  it("signs in with the code flow as a public client, back to the CLI's one loopback address, for 30 days", () => {
    for (const beacon of [dev, prod]) {
      expect(clientsOf(beacon)).toHaveLength(2);
      const [, client] = cliClientOf(beacon);
      expect(client.Properties).toMatchObject({
        AllowedOAuthFlows: ["code"],
        AllowedOAuthFlowsUserPoolClient: true,
        GenerateSecret: false,
        CallbackURLs: [CLI_SIGN_IN_REDIRECT],
        RefreshTokenValidity: 43200,
        TokenValidityUnits: expect.objectContaining({ RefreshToken: "minutes" }),
      });
      expect(client.Properties.LogoutURLs).toBeUndefined();
    }
    external.statelessTemplate.resourceCountIs("AWS::Cognito::UserPoolClient", 0);
  });

  it("is named in /config.json with its return address, so that `beacon login` signs in as it", () => {
    const [cliClientId] = cliClientOf(dev);
    expect(deployedConfig(dev).cli).toEqual({
      clientId: expect.any(String),
      redirectUri: CLI_SIGN_IN_REDIRECT,
    });
    expect(JSON.stringify(dev.statelessTemplate.toJSON())).toContain(cliClientId);
    expect(deployedConfig(external).cli).toBeUndefined();
  });
});

describe("the web console's app client", () => {
  it("signs in with the authorization code flow alone, as a public client, back to the console only", () => {
    for (const [beacon, consoleUrl] of [
      [dev, { "Fn::GetAtt": [expect.stringMatching(/^WebConsoleDistribution/), "DomainName"] }],
      [prod, beaconVariants.prod.context.consoleDomainName],
    ] as const) {
      const [, client] = webClientOf(beacon);
      const url = (path: string) =>
        typeof consoleUrl === "string"
          ? `https://${consoleUrl}${path}`
          : { "Fn::Join": ["", ["https://", consoleUrl, path]] };
      expect(client.Properties).toMatchObject({
        AllowedOAuthFlows: ["code"],
        AllowedOAuthFlowsUserPoolClient: true,
        GenerateSecret: false,
        SupportedIdentityProviders: ["COGNITO"],
        CallbackURLs: [url(SIGN_IN_CALLBACK_PATH)],
        LogoutURLs: [url("/")],
      });
      expect(client.Properties.ExplicitAuthFlows).toBeUndefined();
      expect(
        (client.Properties.WriteAttributes as string[]).filter((name) => name.startsWith("custom:")),
      ).toEqual([]);
    }
  });

  it("is trusted by the console API beside the console client and the CLI's", () => {
    const [clientId] = webClientOf(prod);
    const [cliClientId] = cliClientOf(prod);
    prod.statelessTemplate.hasResourceProperties("AWS::ApiGatewayV2::Authorizer", {
      JwtConfiguration: {
        Audience: [
          { "Fn::ImportValue": Match.stringLikeRegexp("ConsoleClient") },
          { Ref: clientId },
          { Ref: cliClientId },
        ],
      },
    });
    prod.statefulTemplate.hasResourceProperties("AWS::Cognito::UserPoolDomain", {
      Domain: { "Fn::Join": ["", ["beacon-prod-", { Ref: "AWS::AccountId" }]] },
    });
    external.statelessTemplate.resourceCountIs("AWS::Cognito::UserPoolClient", 0);
  });
});

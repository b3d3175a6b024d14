import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { AssetHashType, DockerImage, Duration, RemovalPolicy, Stack, Validations } from "aws-cdk-lib";
import { Certificate } from "aws-cdk-lib/aws-certificatemanager";
import {
  AllowedMethods,
  type BehaviorOptions,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  type ResponseCustomHeader,
  ResponseHeadersPolicy,
  type ResponseSecurityHeadersBehavior,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from "aws-cdk-lib/aws-cloudfront";
import { HttpOrigin, S3BucketOrigin } from "aws-cdk-lib/aws-cloudfront-origins";
import type { IUserPoolClient } from "aws-cdk-lib/aws-cognito";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  ObjectOwnership,
} from "aws-cdk-lib/aws-s3";
import { BucketDeployment, Source } from "aws-cdk-lib/aws-s3-deployment";
import { Construct } from "constructs";
import {
  API_PREFIX,
  ASSETS_PREFIX,
  CacheControl,
  CONFIG_PATH,
  type OAuthClientConfig,
  securityHeaders,
  type WebConsoleConfig,
} from "../../web/serving.js";
import type { ConsoleDomain, ConsoleIdentity } from "./config.js";
import type { ConsoleUsers } from "./console-users.js";
import { repositoryRoot } from "./paths.js";

/** The identity provider's token endpoint, which the distribution serves on the console's own origin. */
export interface TokenEndpoint {
  readonly host: string;
  /** The endpoint's path at its host, and so on the console's origin. */
  readonly path: string;
}

export interface WebConsoleProps {
  /** The console API's host name (`<id>.execute-api.<region>.amazonaws.com`); its routes are under /api/. */
  readonly consoleApiHost: string;
  readonly tokenEndpoint: TokenEndpoint;
  /** What the page reads at /config.json: how it signs people in. */
  readonly config: WebConsoleConfig;
  readonly domain: ConsoleDomain | undefined;
  /**
   * The assets bucket's regional endpoint (`https://<bucket>.s3.<region>.amazonaws.com`), where the console
   * API's presigned part URLs point: the page sends an asset's parts there, so its `connect-src` allows it.
   */
  readonly storageOrigin: string;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

export interface WebSignIn {
  readonly tokenEndpoint: TokenEndpoint;
  readonly oauth: OAuthClientConfig;
}

/**
 * How the deployed console signs people in: the authorization code flow with PKCE against the user pool's
 * hosted pages and its web client, or against the external issuer's endpoints from the configuration.
 */
export function webSignInOf(
  identity: ConsoleIdentity,
  users: ConsoleUsers | undefined,
  webClient: IUserPoolClient | undefined,
  consoleUrl: string,
): WebSignIn {
  if (identity.kind === "oidc") {
    const { authorizationEndpoint, tokenEndpoint, clientId, logoutUrl } = identity.webClient;
    const token = new URL(tokenEndpoint);
    if ([API_PREFIX, ASSETS_PREFIX].some((prefix) => token.pathname.startsWith(prefix))) {
      throw new Error(`The token endpoint's path ${token.pathname} is one of the console's own`);
    }
    return {
      tokenEndpoint: { host: token.host, path: token.pathname },
      oauth: {
        authorizationEndpoint,
        tokenEndpoint: token.pathname,
        clientId,
        issuer: identity.issuer,
        scopes: ["openid"],
        ...(logoutUrl === undefined ? {} : { logoutUrl }),
      },
    };
  }
  if (users === undefined || webClient === undefined) throw new Error("The console's user pool is missing");
  const host = users.signInHost;
  const clientId = webClient.userPoolClientId;
  return {
    tokenEndpoint: { host, path: "/oauth2/token" },
    oauth: {
      authorizationEndpoint: `https://${host}/oauth2/authorize`,
      tokenEndpoint: "/oauth2/token",
      clientId,
      issuer: users.userPool.userPoolProviderUrl,
      scopes: ["openid", "email", "profile"],
      // Ends the hosted pages' session too, then comes back to the console's sign-in.
      logoutUrl: `https://${host}/logout?client_id=${clientId}&logout_uri=${consoleUrl}/`,
    },
  };
}

/**
 * Any path whose last segment has no file extension is a page of the single-page app and gets index.html,
 * as the local web server answers it. Runs at the edge on each request of the default behavior, so the
 * console API's own 403 and 404 replies stay what they are (an error response of the distribution would
 * turn those into the page too).
 */
export const SPA_FALLBACK_FUNCTION = `function handler(event) {
  var request = event.request;
  var last = request.uri.split("/").pop();
  if (last.indexOf(".") === -1) request.uri = "/index.html";
  return request;
}`;

/**
 * The built web console on AWS: a private bucket behind CloudFront (origin access control), the security
 * headers and caching the local web server sends (web/serving.ts), and on the same origin the console API
 * under /api/ and the identity provider's token endpoint, so the page talks to nothing but its own origin, and
 * to the assets bucket, where it sends an asset's parts by the console API's presigned URLs.
 */
export class WebConsole extends Construct {
  /** The console's public URL, without a trailing slash. */
  readonly url: string;
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: WebConsoleProps) {
    super(scope, id);
    const autoDeleteObjects = props.removalPolicy === RemovalPolicy.DESTROY;
    const privateBucket = {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: props.removalPolicy,
      autoDeleteObjects,
    };
    const site = new Bucket(this, "Site", {
      ...privateBucket,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    });
    Validations.of(site).acknowledge({
      id: "AwsSolutions-S1",
      reason:
        "Only the distribution reads the bucket, through origin access control, and the deployment writes it; " +
        "the distribution's access logs record every request that reaches a file of the console.",
    });
    // CloudFront's standard logs are written with object ACLs, which the bucket must accept.
    const accessLogs = new Bucket(this, "AccessLogs", {
      ...privateBucket,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(props.logRetention) }],
    });
    Validations.of(accessLogs).acknowledge({
      id: "AwsSolutions-S1",
      reason:
        "This bucket holds the distribution's access logs: logging the requests CloudFront makes to write them " +
        "would only log the logging.",
    });

    const siteOrigin = S3BucketOrigin.withOriginAccessControl(site);
    const passedOn: Omit<BehaviorOptions, "origin"> = {
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      // With caching off, the all-viewer policy passes the Authorization header on too.
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      responseHeadersPolicy: headersPolicy(this, "PassedOnHeaders", props.storageOrigin, undefined),
    };
    const httpsOrigin = (host: string) =>
      new HttpOrigin(host, {
        protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      });

    this.distribution = new Distribution(this, "Distribution", {
      comment: "Beacon web console",
      defaultRootObject: "index.html",
      defaultBehavior: {
        origin: siteOrigin,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headersPolicy(this, "PageHeaders", props.storageOrigin, CacheControl.page),
        functionAssociations: [
          {
            eventType: FunctionEventType.VIEWER_REQUEST,
            function: new EdgeFunction(this, "SpaFallback", {
              comment: "Serves index.html for the console's routes",
              code: FunctionCode.fromInline(SPA_FALLBACK_FUNCTION),
            }),
          },
        ],
      },
      additionalBehaviors: {
        [`${ASSETS_PREFIX}*`]: {
          origin: siteOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
          cachePolicy: CachePolicy.CACHING_OPTIMIZED,
          responseHeadersPolicy: headersPolicy(
            this,
            "AssetHeaders",
            props.storageOrigin,
            CacheControl.assets,
          ),
        },
        [`${API_PREFIX}*`]: { ...passedOn, origin: httpsOrigin(props.consoleApiHost) },
        [props.tokenEndpoint.path]: { ...passedOn, origin: httpsOrigin(props.tokenEndpoint.host) },
      },
      ...(props.domain === undefined
        ? {}
        : {
            domainNames: [props.domain.domainName],
            certificate: Certificate.fromCertificateArn(this, "Certificate", props.domain.certificateArn),
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }),
      httpVersion: HttpVersion.HTTP2_AND_3,
      enableLogging: true,
      logBucket: accessLogs,
      logFilePrefix: "distribution/",
    });
    if (props.domain === undefined) {
      Validations.of(this.distribution).acknowledge({
        id: "AwsSolutions-CFR4",
        reason:
          "Without a console domain of its own the distribution answers on its cloudfront.net name, whose " +
          "shared certificate CloudFront offers from TLS 1.0; give consoleDomainName for TLS 1.2 and later only.",
      });
    }
    this.url = `https://${props.domain?.domainName ?? this.distribution.distributionDomainName}`;

    const deployment = new BucketDeployment(this, "Deployment", {
      sources: [builtConsole(), Source.jsonData(CONFIG_PATH.slice(1), props.config)],
      destinationBucket: site,
      // A tab opened before a deployment still loads its pages' chunks by their old names.
      prune: false,
      distribution: this.distribution,
      distributionPaths: ["/*"],
    });
    acknowledgeDeploymentFunction(deployment, site);
    for (const [rule, reason] of [
      [
        "AwsSolutions-CFR1",
        "Beacon's operators sign in from wherever their fleets are; no country is closed to them by default.",
      ],
      [
        "AwsSolutions-CFR2",
        "The console is static files and an API behind a JWT authorizer with stage throttling; attach a web " +
          "ACL to the distribution where policy asks for one.",
      ],
    ] as const) {
      Validations.of(this.distribution).acknowledge({ id: rule, reason });
    }
  }
}

/**
 * CDK's own function that copies the files (one per stack, shared by its bucket deployments) comes with the
 * grants and runtime CDK gives it; it runs only while CloudFormation deploys the console.
 */
function acknowledgeDeploymentFunction(deployment: BucketDeployment, site: Bucket): void {
  const copier = deployment.handlerRole.node.scope as Construct;
  const siteArn = Stack.of(site).getLogicalId(site.node.defaultChild as CfnBucket);
  const grants =
    "CDK's bucket deployment function is granted reading the CDK assets bucket, writing and deleting in the " +
    "console's own bucket and invalidating the distribution: the grants CDK writes for it, on those alone.";
  Validations.of(copier).acknowledge(
    {
      id: "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]",
      reason:
        "CDK's bucket deployment function writes its logs under the basic execution role, as CDK creates it " +
        "for the function.",
    },
    {
      id: "AwsSolutions-L1",
      reason:
        "CDK's bucket deployment function runs the runtime the CDK release chose and tested it on; upgrading " +
        "aws-cdk-lib moves it on.",
    },
    ...[
      "Action::s3:GetBucket*",
      "Action::s3:GetObject*",
      "Action::s3:List*",
      "Action::s3:Abort*",
      "Action::s3:DeleteObject*",
      "Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*",
      `Resource::<${siteArn}.Arn>/*`,
      "Resource::*",
    ].map((finding) => ({ id: `AwsSolutions-IAM5[${finding}]`, reason: grants })),
  );
}

/**
 * The security headers of web/serving.ts as CloudFront sends them: the ones it knows by name in their own
 * fields, the others as custom headers, and HSTS since the console is HTTPS only. A header it cannot send
 * the same way fails the synthesis.
 */
function headersPolicy(
  scope: Construct,
  id: string,
  storageOrigin: string,
  cacheControl: string | undefined,
): ResponseHeadersPolicy {
  const security: {
    -readonly [K in keyof ResponseSecurityHeadersBehavior]: ResponseSecurityHeadersBehavior[K];
  } = { strictTransportSecurity: { accessControlMaxAge: Duration.days(365), override: true } };
  const custom: ResponseCustomHeader[] = [];
  for (const [header, value] of Object.entries(securityHeaders(storageOrigin))) {
    if (header === "content-security-policy") {
      security.contentSecurityPolicy = { contentSecurityPolicy: value, override: true };
    } else if (header === "x-content-type-options" && value === "nosniff") {
      security.contentTypeOptions = { override: true };
    } else if (header === "x-frame-options") {
      security.frameOptions = { frameOption: enumValue(HeadersFrameOption, header, value), override: true };
    } else if (header === "referrer-policy") {
      security.referrerPolicy = {
        referrerPolicy: enumValue(HeadersReferrerPolicy, header, value),
        override: true,
      };
    } else custom.push({ header, value, override: true });
  }
  if (cacheControl !== undefined)
    custom.push({ header: "cache-control", value: cacheControl, override: true });
  return new ResponseHeadersPolicy(scope, id, {
    securityHeadersBehavior: security,
    customHeadersBehavior: { customHeaders: custom },
  });
}

function enumValue<T extends string>(values: Record<string, T>, header: string, value: string): T {
  const known = Object.values(values).find((candidate) => candidate === value);
  if (known === undefined) throw new Error(`CloudFront cannot send ${header}: ${value}`);
  return known;
}

/**
 * The console as `npm run web:build` builds it, built when the app is synthesized (as the functions are
 * bundled then), with the local toolchain; the build's manifest and stamp stay out of the bucket.
 */
function builtConsole() {
  const webDir = join(repositoryRoot, "web");
  return Source.asset(webDir, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: the local build below always runs, with the repository's own packages.
      image: DockerImage.fromRegistry("public.ecr.aws/docker/library/node:22"),
      local: {
        tryBundle(outputDir) {
          execFileSync(process.execPath, ["--import", "tsx", join(webDir, "tools", "build.ts"), outputDir], {
            cwd: repositoryRoot,
            stdio: ["ignore", process.stderr, "inherit"],
          });
          for (const internal of [".vite", ".build-stamp"]) {
            rmSync(join(outputDir, internal), { recursive: true, force: true });
          }
          return true;
        },
      },
    },
  });
}

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { RemovalPolicy } from "aws-cdk-lib";
import { SystemLogLevel } from "aws-cdk-lib/aws-lambda";
import { RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Node } from "constructs";
import {
  type AgentTrust,
  agentTrustOf,
  type TenantCa,
  tenantCaRegistrationsOf,
} from "../../functions/adapters/x509/trust.js";
import { DEFAULT_DEBUG_BUNDLE_DAYS } from "../../functions/core/bundles/model.js";
import type { EventBufferBounds } from "../../functions/core/events/ports.js";
import {
  type PricedOption,
  type StatementPricing,
  statementPricing,
} from "../../functions/core/history/statement.js";
import { DEFAULT_OPERATION_RESULT_DAYS } from "../../functions/core/operations/results.js";
import type { DegradationCounter } from "./monitoring.js";

export const stageNames = ["dev", "prod"] as const;
export type StageName = (typeof stageNames)[number];

/**
 * `api`: API Gateway HTTP API with a mutual TLS custom domain. `alb`: Application Load Balancer, which terminates
 * mutual TLS. `nlb`: Network Load Balancer passing TCP through to the agent service, which terminates mutual TLS
 * itself (`agentCompute=fargate` only): for fleets of kept-alive agents, whose connections an NLB prices lower.
 */
export const agentIngressKinds = ["api", "alb", "nlb"] as const;
export type AgentIngressKind = (typeof agentIngressKinds)[number];

/** Whether the agents' ingress is a load balancer (in the VPC's public subnets, its targets the agent service's). */
export const isLoadBalancer = (ingress: AgentIngressKind): boolean => ingress !== "api";

/**
 * What runs the agent API's handler: `lambda`, one invocation per request; `fargate`, the agent service, a
 * long-running Node service on ECS Fargate behind the load balancer (`agentIngress=alb` or `nlb`), for large fleets.
 */
export const agentComputeKinds = ["lambda", "fargate"] as const;
export type AgentComputeKind = (typeof agentComputeKinds)[number];

/** The agent service's task count, within which it scales on CPU and on requests per task. */
export interface AgentServiceTasks {
  readonly min: number;
  readonly max: number;
}

export const logLevels = ["DEBUG", "INFO", "WARN", "ERROR"] as const;
export type LogLevel = (typeof logLevels)[number];

/** Counts are per five-minute period unless the name says otherwise. */
export interface AlarmThresholds {
  readonly agentServerErrorPercent: number;
  readonly agentLatencyP99Ms: number;
  readonly functionErrors: number;
  readonly functionThrottles: number;
  /**
   * An agent service's average CPU or memory use, in percent of its tasks': it scales out at half its CPU, so
   * this much means it is at its most tasks, or cannot scale out fast enough.
   */
  readonly serviceUtilisationPercent: number;
  /**
   * TCP resets a Network Load Balancer sent, or its targets sent, in five minutes (`agentIngress=nlb`): a few are
   * agents' and scanners' own doing (a handshake refused ends in one); many mean tasks dropping connections.
   */
  readonly agentConnectionResets: number;
  /** How far, in ms, the stream consumer may fall behind the newest event on its stream. */
  readonly streamIteratorAgeMs: number;
  readonly degradations: Record<DegradationCounter, number>;
}

export interface Throttle {
  readonly requestsPerSecond: number;
  readonly burst: number;
}

export interface StageSettings {
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
  readonly defaultLogLevel: LogLevel;
  /** Lambda's own lines; below WARN that is three lines (START, END, REPORT) for every invocation. */
  readonly platformLogLevel: SystemLogLevel;
  readonly memoryMb: { readonly agentApi: number; readonly consoleApi: number };
  readonly agentThrottle: Throttle;
  /** People and scripts, not fleets: a small fraction of the agent API's rate. */
  readonly consoleThrottle: Throttle;
  /** Upper bounds that cap the serverless cache's bill; it scales freely below them. */
  readonly cacheLimits: { readonly dataStorageGb: number; readonly ecpuPerSecond: number };
  /**
   * The cache's buffer of events the stream refuses: 200,000 events are about 180 MB; one tenant holds a tenth
   * at most, and what it cannot hold is kept in the table.
   */
  readonly eventBuffer: EventBufferBounds;
  /** Days the console's audit records are kept. */
  readonly auditRetentionDays: number;
  readonly alarms: AlarmThresholds;
}

const settingsByStage: Record<StageName, StageSettings> = {
  dev: {
    removalPolicy: RemovalPolicy.DESTROY,
    logRetention: RetentionDays.ONE_WEEK,
    defaultLogLevel: "DEBUG",
    platformLogLevel: SystemLogLevel.INFO,
    memoryMb: { agentApi: 512, consoleApi: 512 },
    agentThrottle: { requestsPerSecond: 200, burst: 400 },
    consoleThrottle: { requestsPerSecond: 20, burst: 40 },
    cacheLimits: { dataStorageGb: 1, ecpuPerSecond: 5_000 },
    eventBuffer: { maxEvents: 200_000, maxEventsPerTenant: 20_000 },
    // A development stage's trail is for trying the console out, not for reviews.
    auditRetentionDays: 30,
    alarms: {
      agentServerErrorPercent: 5,
      agentLatencyP99Ms: 2_000,
      functionErrors: 10,
      functionThrottles: 10,
      serviceUtilisationPercent: 85,
      agentConnectionResets: 100,
      streamIteratorAgeMs: 15 * 60_000,
      degradations: {
        CacheFallbacks: 50,
        StreamFailures: 10,
        EventsLost: 10,
        HeartbeatsFailed: 10,
        EventsRefused: 10,
        ConsumerFailures: 10,
        WebhookFailures: 50,
        WebhooksDisabled: 5,
        OutboxRelayed: 10,
        OutboxClearFailures: 10,
        EventsHeld: 100,
        // The stream and the cache failed together: every one is worth a look.
        EventsHeldInOutbox: 1,
        NotificationsRefusedByBus: 10,
      },
    },
  },
  prod: {
    removalPolicy: RemovalPolicy.RETAIN,
    logRetention: RetentionDays.THREE_MONTHS,
    defaultLogLevel: "WARN",
    // At 100,000 agents the per-invocation lines would cost more in CloudWatch Logs than the compute they report.
    platformLogLevel: SystemLogLevel.WARN,
    // Twice dev's memory buys twice the CPU for inflating and parsing manifests of up to ~750 KB.
    // The console signs certificates and summarises manifests now and then: 512 MB is plenty.
    memoryMb: { agentApi: 1024, consoleApi: 512 },
    // 100,000 agents at a 60 s heartbeat make ~1,800 requests/s; the headroom covers a fleet restarting at once.
    agentThrottle: { requestsPerSecond: 5_000, burst: 5_000 },
    consoleThrottle: { requestsPerSecond: 200, burst: 400 },
    cacheLimits: { dataStorageGb: 10, ecpuPerSecond: 100_000 },
    eventBuffer: { maxEvents: 200_000, maxEventsPerTenant: 20_000 },
    // Over a year: a yearly access review still finds the whole year's changes.
    auditRetentionDays: 400,
    alarms: {
      agentServerErrorPercent: 1,
      agentLatencyP99Ms: 1_000,
      functionErrors: 25,
      functionThrottles: 1,
      serviceUtilisationPercent: 85,
      agentConnectionResets: 1_000,
      // Batches wait up to a minute to fill; five more minutes behind means the consumer is not keeping up.
      streamIteratorAgeMs: 6 * 60_000,
      // Beacon writes only events its schemas describe: one refused record is a bug to look at.
      degradations: {
        CacheFallbacks: 100,
        StreamFailures: 10,
        EventsLost: 10,
        HeartbeatsFailed: 50,
        EventsRefused: 1,
        ConsumerFailures: 5,
        // One tenant's receiver down for a day fails its deliveries by the hundred: many means many tenants'
        // receivers, or Beacon's own egress. Disabled subscriptions are tenants who stopped hearing from Beacon.
        WebhookFailures: 500,
        WebhooksDisabled: 10,
        // Each relayed event is one its writer could not put: the stream or the function was in trouble.
        OutboxRelayed: 10,
        OutboxClearFailures: 10,
        EventsHeld: 100,
        // The stream and the cache failed together: every one is worth a look.
        EventsHeldInOutbox: 1,
        // PutEvents throttled past the consumer's retries: AWS-native consumers hear of notifications late.
        NotificationsRefusedByBus: 10,
      },
    },
  },
};

export interface AgentDomain {
  readonly domainName: string;
  readonly certificateArn: string;
  /**
   * The certificate authorities that sign agents' client certificates: Beacon's own (the CA bundle, both
   * CAs during a rotation) and tenants' own, as the ingress's truststore and the agent API's bindings.
   */
  readonly trust: AgentTrust;
}

/**
 * Who signs the console's tokens: a Cognito user pool the stateful stack creates, or an OpenID Connect
 * issuer of the operator's own (its tokens must carry the same claims; see docs/deploying.md).
 */
export type ConsoleIdentity =
  | { readonly kind: "userPool" }
  | {
      readonly kind: "oidc";
      readonly issuer: string;
      readonly audiences: string[];
      /** How the web console signs people in there: the authorization code flow with PKCE, as a public client. */
      readonly webClient: OidcWebClient;
    };

export interface OidcWebClient {
  readonly authorizationEndpoint: string;
  /** The distribution passes this URL's path to its host, so the page reaches it on its own origin. */
  readonly tokenEndpoint: string;
  /** One of the audiences: the ID token's `aud` is the client it was issued to. */
  readonly clientId: string;
  readonly logoutUrl: string | undefined;
}

/** The web console's own name, with its ACM certificate (in us-east-1, as CloudFront requires). */
export interface ConsoleDomain {
  readonly domainName: string;
  readonly certificateArn: string;
}

export interface BeaconConfig {
  readonly stage: StageName;
  readonly settings: StageSettings;
  readonly agentIngress: AgentIngressKind;
  readonly agentCompute: AgentComputeKind;
  /** `-c agentServiceMinTasks=N -c agentServiceMaxTasks=M`: 2 and 20 unless set. */
  readonly agentServiceTasks: AgentServiceTasks;
  /**
   * The ports agents connect to (`-c agentPorts=443,10090`), each a listener of the load balancer with mutual TLS;
   * 443 unless set, and 443 alone behind the HTTP API, whose custom domain serves no other.
   */
  readonly agentPorts: readonly number[];
  readonly agentDomain: AgentDomain;
  readonly consoleIdentity: ConsoleIdentity;
  /** Undefined serves the web console on the distribution's own cloudfront.net name. */
  readonly consoleDomain: ConsoleDomain | undefined;
  /** A Secrets Manager secret holding the agent CA; undefined makes the stateful stack create one to fill. */
  readonly agentCaSecretArn: string | undefined;
  /**
   * With `agentIngress=nlb`: the Secrets Manager secret holding the server certificate the agent service presents
   * (`{"certificatePem": "…", "privateKeyPem": "…"}`, the leaf then its intermediates), as an ACM certificate's key
   * never leaves ACM. A private CA's ECDSA certificate with a short chain sends the fewest bytes per handshake.
   */
  readonly agentServerCertificateSecretArn: string | undefined;
  /** Undefined means on-demand capacity. */
  readonly streamShardCount: number | undefined;
  /** Days the event archive keeps an event (`-c eventArchiveDays=N`, 400 unless set). */
  readonly eventArchiveDays: number;
  /**
   * Days the console serves, and the asset bucket keeps, the answer a DESCRIBE brought
   * (`-c operationResultDays=N`, 7 unless set).
   */
  readonly operationResultDays: number;
  /**
   * Days the console serves, and the asset bucket keeps, a debug bundle an agent uploaded
   * (`-c debugBundleDays=N`, 1 unless set).
   */
  readonly debugBundleDays: number;
  readonly logLevel: LogLevel;
  readonly tracing: boolean;
  readonly alarmEmail: string | undefined;
  readonly account: string | undefined;
  readonly region: string | undefined;
  /**
   * What usage statements bill with: the capacity model's unit prices for the way this deployment runs the agent
   * API, with `-c usageUnitPrices='{"heartbeats":0.00001}'` (USD per unit) over them; checked at synthesis.
   */
  readonly usagePricing: StatementPricing;
}

/** The capacity model's option for how the agent API runs: its unit prices are what the deployment costs. */
const pricedOptionOf = (ingress: AgentIngressKind, compute: AgentComputeKind): PricedOption =>
  ingress === "api"
    ? "httpApiLambda"
    : ingress === "nlb"
      ? "nlbFargate"
      : compute === "fargate"
        ? "albFargate"
        : "albLambda";

/** Two tasks, one per zone, survive a zone's loss; twenty 1-vCPU tasks serve several times 100,000 agents. */
const DEFAULT_AGENT_SERVICE_TASKS: AgentServiceTasks = { min: 2, max: 20 };

/** HTTPS's: the one port the HTTP API's custom domain serves, and the load balancer's unless told otherwise. */
const HTTPS_PORT = 443;

/**
 * The most listeners a load balancer verifies client certificates on (an Application Load Balancer quota that
 * cannot be raised): 443 and the port of a fleet's configuration, say the incumbent C2 server's 10090.
 */
const MAX_AGENT_PORTS = 2;

/**
 * Ports agents speak plain HTTP to, the incumbent C2 server's 10080 among them. Beacon's listeners speak HTTPS
 * with mutual TLS alone, so such a port would only refuse those agents' handshakes in a more puzzling way.
 */
const PLAIN_HTTP_PORTS: readonly number[] = [80, 10080];

/** A year of events and a month to compare it with. */
const DEFAULT_EVENT_ARCHIVE_DAYS = 400;

/** Context keys the app reads; `cdk.json` holds the defaults, `-c key=value` overrides them. */
const ContextKeys = {
  stage: "stage",
  agentIngress: "agentIngress",
  agentCompute: "agentCompute",
  agentServiceMinTasks: "agentServiceMinTasks",
  agentServiceMaxTasks: "agentServiceMaxTasks",
  agentPorts: "agentPorts",
  agentDomainName: "agentDomainName",
  agentCertificateArn: "agentCertificateArn",
  agentCaBundle: "agentCaBundle",
  agentTenantCas: "agentTenantCas",
  agentCaSecretArn: "agentCaSecretArn",
  agentServerCertificateSecretArn: "agentServerCertificateSecretArn",
  consoleIssuer: "consoleIssuer",
  consoleAudience: "consoleAudience",
  consoleAuthorizationEndpoint: "consoleAuthorizationEndpoint",
  consoleTokenEndpoint: "consoleTokenEndpoint",
  consoleClientId: "consoleClientId",
  consoleLogoutUrl: "consoleLogoutUrl",
  consoleDomainName: "consoleDomainName",
  consoleCertificateArn: "consoleCertificateArn",
  streamShards: "streamShards",
  eventArchiveDays: "eventArchiveDays",
  operationResultDays: "operationResultDays",
  debugBundleDays: "debugBundleDays",
  logLevel: "logLevel",
  tracing: "tracing",
  alarmEmail: "alarmEmail",
  usageUnitPrices: "usageUnitPrices",
  account: "account",
  region: "region",
} as const;

export function readConfig(node: Pick<Node, "tryGetContext">): BeaconConfig {
  const optional = (key: string): string | undefined => {
    const value = node.tryGetContext(key);
    return value === undefined || value === null || value === "" ? undefined : String(value);
  };
  const required = (key: string): string => {
    const value = optional(key);
    if (value === undefined) throw new Error(`Context value "${key}" is required (-c ${key}=...)`);
    return value;
  };
  const stage = oneOf(ContextKeys.stage, required(ContextKeys.stage), stageNames);
  const settings = settingsByStage[stage];
  const logLevel = optional(ContextKeys.logLevel);
  const streamShards = optional(ContextKeys.streamShards);
  const [consoleIssuer, consoleAudience, authorizationEndpoint, tokenEndpoint] = together(optional, [
    ContextKeys.consoleIssuer,
    ContextKeys.consoleAudience,
    ContextKeys.consoleAuthorizationEndpoint,
    ContextKeys.consoleTokenEndpoint,
  ]);
  const [consoleDomainName, consoleCertificateArn] = together(optional, [
    ContextKeys.consoleDomainName,
    ContextKeys.consoleCertificateArn,
  ]);
  const eventArchiveDays = optional(ContextKeys.eventArchiveDays);
  const operationResultDays = optional(ContextKeys.operationResultDays);
  const agentIngress = oneOf(
    ContextKeys.agentIngress,
    optional(ContextKeys.agentIngress) ?? "api",
    agentIngressKinds,
  );
  const agentCompute = oneOf(
    ContextKeys.agentCompute,
    optional(ContextKeys.agentCompute) ?? "lambda",
    agentComputeKinds,
  );
  if (agentCompute === "fargate" && agentIngress === "api") {
    throw new Error(
      `Context value "${ContextKeys.agentCompute}" is "fargate", which runs behind the load balancer: ` +
        `add -c ${ContextKeys.agentIngress}=alb or nlb (it is "${agentIngress}")`,
    );
  }
  if (agentIngress === "nlb" && agentCompute !== "fargate") {
    throw new Error(
      `Context value "${ContextKeys.agentIngress}" is "nlb", which passes TCP through to the agent service that ` +
        `terminates mutual TLS: add -c ${ContextKeys.agentCompute}=fargate (it is "${agentCompute}")`,
    );
  }
  const agentServerCertificateSecretArn = optional(ContextKeys.agentServerCertificateSecretArn);
  if ((agentIngress === "nlb") !== (agentServerCertificateSecretArn !== undefined)) {
    throw new Error(
      agentIngress === "nlb"
        ? `Context value "${ContextKeys.agentServerCertificateSecretArn}" is required with ` +
            `${ContextKeys.agentIngress}=nlb: the secret of the server certificate the agent service presents ` +
            '({"certificatePem": "…", "privateKeyPem": "…"})'
        : `Context value "${ContextKeys.agentServerCertificateSecretArn}" is read with ` +
            `${ContextKeys.agentIngress}=nlb alone (it is "${agentIngress}"), where the agent service terminates TLS`,
    );
  }
  const debugBundleDays = optional(ContextKeys.debugBundleDays);
  const usageUnitPrices = node.tryGetContext(ContextKeys.usageUnitPrices);
  return {
    stage,
    settings,
    agentIngress,
    agentCompute,
    agentServiceTasks: agentServiceTasksOf(optional),
    agentPorts: agentPortsOf(optional(ContextKeys.agentPorts), agentIngress),
    agentDomain: {
      domainName: required(ContextKeys.agentDomainName),
      certificateArn: required(ContextKeys.agentCertificateArn),
      trust: agentTrustOf(
        readFileSync(resolve(required(ContextKeys.agentCaBundle)), "utf8"),
        tenantCasOf(optional(ContextKeys.agentTenantCas)),
      ),
    },
    consoleIdentity:
      consoleIssuer === undefined
        ? { kind: "userPool" }
        : oidcIdentity(consoleIssuer, (consoleAudience as string).split(","), {
            authorizationEndpoint: httpsUrl(
              ContextKeys.consoleAuthorizationEndpoint,
              authorizationEndpoint as string,
            ),
            tokenEndpoint: httpsUrl(ContextKeys.consoleTokenEndpoint, tokenEndpoint as string),
            clientId: optional(ContextKeys.consoleClientId),
            logoutUrl: optional(ContextKeys.consoleLogoutUrl),
          }),
    consoleDomain:
      consoleDomainName === undefined
        ? undefined
        : { domainName: consoleDomainName, certificateArn: consoleCertificateArn as string },
    agentCaSecretArn: optional(ContextKeys.agentCaSecretArn),
    agentServerCertificateSecretArn,
    streamShardCount:
      streamShards === undefined ? undefined : positiveInteger(ContextKeys.streamShards, streamShards),
    eventArchiveDays:
      eventArchiveDays === undefined
        ? DEFAULT_EVENT_ARCHIVE_DAYS
        : positiveInteger(ContextKeys.eventArchiveDays, eventArchiveDays),
    operationResultDays:
      operationResultDays === undefined
        ? DEFAULT_OPERATION_RESULT_DAYS
        : positiveInteger(ContextKeys.operationResultDays, operationResultDays),
    debugBundleDays:
      debugBundleDays === undefined
        ? DEFAULT_DEBUG_BUNDLE_DAYS
        : positiveInteger(ContextKeys.debugBundleDays, debugBundleDays),
    logLevel:
      logLevel === undefined ? settings.defaultLogLevel : oneOf(ContextKeys.logLevel, logLevel, logLevels),
    tracing: optional(ContextKeys.tracing) === "true",
    alarmEmail: optional(ContextKeys.alarmEmail),
    account: optional(ContextKeys.account),
    region: optional(ContextKeys.region),
    usagePricing: statementPricing(
      pricedOptionOf(agentIngress, agentCompute),
      // A context value from the command line is a string; one from cdk.json may be the object itself.
      typeof usageUnitPrices === "string" ? JSON.parse(usageUnitPrices) : (usageUnitPrices ?? {}),
    ),
  };
}

/**
 * Tenants' own CAs, from a JSON file in tenantCaRegistrationsOf's format, each PEM file named relative to the
 * JSON file: each CA is trusted beside Beacon's and may speak for its tenant alone, by its rule.
 */
function tenantCasOf(path: string | undefined): TenantCa[] {
  if (path === undefined) return [];
  const file = resolve(path);
  const registrations = tenantCaRegistrationsOf(
    JSON.parse(readFileSync(file, "utf8")),
    `Context value "${ContextKeys.agentTenantCas}" (${file})`,
  );
  return registrations.map(({ tenant, ca, agentId }) => ({
    tenant,
    pem: readFileSync(resolve(dirname(file), ca), "utf8"),
    ...(agentId === undefined ? {} : { agentId }),
  }));
}

function agentServiceTasksOf(optional: (key: string) => string | undefined): AgentServiceTasks {
  const [min, max] = [ContextKeys.agentServiceMinTasks, ContextKeys.agentServiceMaxTasks].map((key) => {
    const value = optional(key);
    return value === undefined ? undefined : positiveInteger(key, value);
  });
  const tasks = { min: min ?? DEFAULT_AGENT_SERVICE_TASKS.min, max: max ?? DEFAULT_AGENT_SERVICE_TASKS.max };
  if (tasks.min > tasks.max) {
    throw new Error(
      `Context value "${ContextKeys.agentServiceMinTasks}" (${tasks.min}) must not be above ` +
        `"${ContextKeys.agentServiceMaxTasks}" (${tasks.max})`,
    );
  }
  return tasks;
}

function agentPortsOf(value: string | undefined, agentIngress: AgentIngressKind): number[] {
  const key = ContextKeys.agentPorts;
  const ports =
    value === undefined ? [HTTPS_PORT] : value.split(",").map((port) => tcpPort(key, port.trim()));
  if (new Set(ports).size !== ports.length)
    throw new Error(`Context value "${key}" names a port twice: ${value}`);
  if (agentIngress === "alb" && ports.length > MAX_AGENT_PORTS) {
    throw new Error(
      `Context value "${key}" names ${ports.length} ports; a load balancer verifies client certificates on ` +
        `${MAX_AGENT_PORTS} listeners at most`,
    );
  }
  const plain = ports.find((port) => PLAIN_HTTP_PORTS.includes(port));
  if (plain !== undefined) {
    throw new Error(
      `Context value "${key}" names ${plain}, a port agents speak plain HTTP to: Beacon accepts agents over ` +
        "HTTPS with a client certificate alone, so point them at an https:// URL on another port",
    );
  }
  if (agentIngress === "api" && (ports.length !== 1 || ports[0] !== HTTPS_PORT)) {
    throw new Error(
      `Context value "${key}" is "${value}", but the HTTP API's custom domain serves ${HTTPS_PORT} alone: ` +
        `add -c ${ContextKeys.agentIngress}=alb`,
    );
  }
  return ports;
}

/** Values that make sense only all together: all given or none. */
function together(optional: (key: string) => string | undefined, keys: string[]): (string | undefined)[] {
  const values = keys.map(optional);
  if (values.some((value) => value === undefined) && values.some((value) => value !== undefined)) {
    throw new Error(`Context values ${keys.map((key) => `"${key}"`).join(", ")} go together`);
  }
  return values;
}

function oidcIdentity(
  issuer: string,
  audiences: string[],
  webClient: Omit<OidcWebClient, "clientId"> & { clientId: string | undefined },
): ConsoleIdentity {
  const clientId = webClient.clientId ?? (audiences[0] as string);
  if (!audiences.includes(clientId)) {
    throw new Error(
      `Context value "${ContextKeys.consoleClientId}" must be one of the audiences, ${audiences.join(", ")}`,
    );
  }
  return { kind: "oidc", issuer, audiences, webClient: { ...webClient, clientId } };
}

function httpsUrl(key: string, value: string): string {
  if (!URL.canParse(value) || new URL(value).protocol !== "https:") {
    throw new Error(`Context value "${key}" must be an https:// URL; got "${value}"`);
  }
  return value;
}

function oneOf<T extends string>(key: string, value: string, allowed: readonly T[]): T {
  const match = allowed.find((candidate) => candidate === value);
  if (match === undefined)
    throw new Error(`Context value "${key}" must be one of ${allowed.join(", ")}; got "${value}"`);
  return match;
}

function tcpPort(key: string, value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`Context value "${key}" must be TCP ports (1-65535), comma-separated; got "${value}"`);
  }
  return port;
}

function positiveInteger(key: string, value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) {
    throw new Error(`Context value "${key}" must be a positive integer; got "${value}"`);
  }
  return parsed;
}

/**
 * What the capacity model reads: per-heartbeat units (units.json) and AWS list prices (prices.json), each
 * value with where it came from, so that a printed cost can be traced to a measurement, a setting in the
 * repository or a stated assumption.
 */
import { readFileSync, writeFileSync } from "node:fs";

/**
 * `measured`: taken on a machine by a named method (the bench, or `measure.ts`). `configured`: read from
 * Beacon's own code or infrastructure. `documented`: a figure AWS or an agent's code documents.
 * `assumption`: nobody measured it; the `how` says why the value is plausible.
 */
export const unitKinds = ["measured", "configured", "documented", "assumption"] as const;
export type UnitKind = (typeof unitKinds)[number];

export interface Unit {
  value: number;
  unit: string;
  kind: UnitKind;
  how: string;
  /** Where it was measured: CPU, cores, Node; absent for what was not measured. */
  machine?: string;
  /** ISO date of the measurement or reading. */
  date: string;
}

export const unitNames = [
  "handlerCpuMsConcurrent",
  "handlerCpuMsOneAtATime",
  "gatewayAndHandlerCpuMs",
  "lambdaMemoryMb",
  "lambdaMemoryMbPerVcpu",
  "cacheRoundTripMs",
  "streamPutMs",
  "requestBodyBytes",
  "requestHeaderBytes",
  "responseBodyBytes",
  "responseHeaderBytes",
  "cppConnectionsPerHeartbeat",
  "javaPoolIdleSeconds",
  "ingressIdleTimeoutSeconds",
  "ingressConnectionLifetimeSeconds",
  "tlsSetupBytesOutRsa2048",
  "tlsSetupBytesOutEcdsaP256",
  "tlsSetupBytesOutEcdsaP256PrivateCa",
  "tlsSetupBytesOutEcdsaP256PrivateLeaf",
  "sessionTicketBytesSaved",
  "tlsSetupBytesInClient",
  "tlsHandshakeCpuMs",
  "tcpIpHeaderBytesPerHeartbeat",
  "tcpIpHeaderBytesPerConnection",
  "cacheRoundTripsPerHeartbeat",
  "cacheScriptsPerSecondPerShard",
  "cacheMemoryBytesPerAgent",
  "cacheEcpuPerRoundTrip",
  "streamRecordsPerHeartbeat",
  "eventBytes",
  "partitionKeyBytes",
  "streamPutOverheadBytes",
  "dynamoDbRequestsPerHeartbeat",
  "checkpointsPerAgentHour",
  "agentItemBytes",
  "indexesHoldingAgentItem",
  "lastSeenItemBytes",
  "indexesHoldingLastSeenItem",
  "metricLineBytesPerHeartbeat",
  "logEventOverheadBytes",
  "lambdaPlatformLogBytesPerInvocation",
] as const;
export type UnitName = (typeof unitNames)[number];
export type Units = Record<UnitName, Unit>;

/**
 * The agent domain's server certificate: its key and the chain the server sends. `rsa2048` and `ecdsaP256`: ACM
 * public certificates (ACM issues RSA 2048 unless asked for EC_prime256v1) in ACM's chain of four.
 * `ecdsaP256PrivateCa` and `ecdsaP256PrivateLeaf`: an ECDSA P-256 certificate from the operator's or a tenant's
 * private CA, sent with its issuing CA, or alone when the private root issues it itself (a one-tier CA, the root
 * the agents' trust anchor); every ingress takes one
 * (an ALB or API Gateway's custom domain as a certificate imported into ACM, API Gateway's with mutual TLS given an
 * ACM ownership verification certificate besides; the agent service behind an NLB as its own files).
 */
export const serverKeyTypes = ["rsa2048", "ecdsaP256", "ecdsaP256PrivateCa", "ecdsaP256PrivateLeaf"] as const;
export type ServerKeyType = (typeof serverKeyTypes)[number];
export const serverKeyNames: Record<ServerKeyType, string> = {
  rsa2048: "RSA 2048",
  ecdsaP256: "ECDSA P-256",
  ecdsaP256PrivateCa: "ECDSA private, 2 certs",
  ecdsaP256PrivateLeaf: "ECDSA private, leaf",
};
/** The unit that prices setting up a connection with each certificate. */
export const setupUnitOf = {
  rsa2048: "tlsSetupBytesOutRsa2048",
  ecdsaP256: "tlsSetupBytesOutEcdsaP256",
  ecdsaP256PrivateCa: "tlsSetupBytesOutEcdsaP256PrivateCa",
  ecdsaP256PrivateLeaf: "tlsSetupBytesOutEcdsaP256PrivateLeaf",
} as const satisfies Record<ServerKeyType, UnitName>;

export interface Tier {
  /** Monthly usage up to which this tier's value applies; null for the last tier. */
  upTo: number | null;
  value: number;
}

export interface Price {
  /** USD per `unit`; for a tiered price, the first tier's. */
  value: number;
  tiers?: Tier[];
  unit: string;
  source: string;
  /** True when no stored copy of an AWS or third-party page showed this figure: it is recalled list price. */
  assumption: boolean;
  note?: string;
}

export const priceNames = [
  "httpApiRequest",
  "lambdaRequest",
  "lambdaArmGbSecond",
  "albHour",
  "albLcuHour",
  "albTrustStoreHour",
  "nlbHour",
  "nlbLcuHour",
  "fargateArmVcpuHour",
  "fargateArmGbHour",
  "kinesisShardHour",
  "kinesisPutPayloadUnit",
  "kinesisOnDemandStreamHour",
  "kinesisOnDemandGbIn",
  "kinesisOnDemandGbOut",
  "dynamoDbWriteRequestUnit",
  "dynamoDbReadRequestUnit",
  "dynamoDbGbMonth",
  "cacheServerlessEcpu",
  "cacheServerlessGbHour",
  "interfaceEndpointAzHour",
  "interfaceEndpointGb",
  "logsIngestedGb",
  "dataTransferOutGb",
  "s3StandardGbMonth",
] as const;
export type PriceName = (typeof priceNames)[number];

/** A node-based ElastiCache node type: its memory, hourly list price, and whether it may be picked. */
export interface CacheNodeType {
  type: string;
  memoryGiB: number;
  hourly: number;
}

/**
 * What one Application Load Balancer capacity unit covers, on each of the dimensions it is billed by (the
 * largest one counts), as the pricing page states them; `quote` holds the page's words they were read from.
 */
export interface AlbLcu {
  newConnectionsPerSecond: number;
  activeConnectionsPerMinute: number;
  /** Active connections an LCU covers on a listener with mutual TLS: half as many. */
  activeConnectionsPerMinuteMutualTls: number;
  gbPerHourContainers: number;
  gbPerHourLambda: number;
  ruleEvaluationsPerSecond: number;
  freeRulesPerRequest: number;
  source: string;
  quote: string;
  assumption: boolean;
  note?: string;
}

export const albLcuDimensionNames = [
  "newConnectionsPerSecond",
  "activeConnectionsPerMinute",
  "activeConnectionsPerMinuteMutualTls",
  "gbPerHourContainers",
  "gbPerHourLambda",
  "ruleEvaluationsPerSecond",
  "freeRulesPerRequest",
] as const;

/**
 * What one Network Load Balancer capacity unit (NLCU) covers for TCP, on each dimension it is billed by (the largest
 * one counts), as the pricing page states them; `quote` holds the page's words they were read from.
 */
export interface NlbLcu {
  newConnectionsPerSecond: number;
  activeConnectionsPerMinute: number;
  /** Processed bytes, both ways, TLS handshakes and TCP/IP headers included. */
  gbPerHour: number;
  source: string;
  quote: string;
  assumption: boolean;
  note?: string;
}

export const nlbLcuDimensionNames = [
  "newConnectionsPerSecond",
  "activeConnectionsPerMinute",
  "gbPerHour",
] as const;

export interface Prices {
  region: string;
  takenOn: string;
  takenFrom: string;
  prices: Record<PriceName, Price>;
  albLcu: AlbLcu;
  nlbLcu: NlbLcu;
  cacheNodes: { source: string; assumption: boolean; note: string; types: CacheNodeType[] };
}

/** Figures of a deployment's shape that are neither measured nor priced: Beacon's choices and AWS's constants. */
export interface Deployment {
  hoursPerMonth: number;
  /** The key of the agent domain's certificate, which the operator requests or imports (docs/deploying.md). */
  serverKey: ServerKeyType;
  availabilityZones: number;
  /**
   * Interface endpoints every option has (stateful-stack.ts): Kinesis, Secrets Manager and Lambda (the console's
   * webhook tests).
   */
  interfaceEndpoints: number;
  /** Added by a Fargate service in subnets without a NAT gateway: ECR API, ECR Docker, CloudWatch Logs. */
  fargateExtraInterfaceEndpoints: number;
  fargateTaskVcpu: number;
  fargateTaskMemoryGb: number;
  fargateMinTasks: number;
  fargateTargetCpuUtilisation: number;
  /**
   * ALB + Lambda: the always-on task that takes debug bundles' uploads, which a Lambda target cannot (1 MB of
   * body at most), with the same endpoints as the Fargate option's tasks.
   */
  debugBundleTaskVcpu: number;
  debugBundleTaskMemoryGb: number;
  cacheTargetUtilisation: number;
  cacheUsableMemoryFraction: number;
  cacheReplicasPerShard: number;
  /** One listener rule per method (agent-load-balancer.ts): within the 10 rule evaluations an LCU includes free. */
  albRuleEvaluationsPerRequest: number;
  /**
   * The agent load balancer's listeners verify clients' certificates against a trust store (mutual TLS in verify
   * mode, agent-load-balancer.ts): an LCU then covers half the active connections, and the trust store is billed.
   */
  albMutualTls: boolean;
}

export const defaultDeployment: Deployment = {
  hoursPerMonth: 730,
  serverKey: "rsa2048",
  availabilityZones: 2,
  interfaceEndpoints: 3,
  fargateExtraInterfaceEndpoints: 3,
  fargateTaskVcpu: 1,
  fargateTaskMemoryGb: 2,
  fargateMinTasks: 2,
  fargateTargetCpuUtilisation: 0.5,
  debugBundleTaskVcpu: 0.25,
  debugBundleTaskMemoryGb: 0.5,
  cacheTargetUtilisation: 0.5,
  cacheUsableMemoryFraction: 0.75,
  cacheReplicasPerShard: 1,
  albRuleEvaluationsPerRequest: 2,
  albMutualTls: true,
};

const capacityDir = new URL("./", import.meta.url);
export const unitsFile = new URL("units.json", capacityDir);
export const pricesFile = new URL("prices.json", capacityDir);

interface UnitsDocument {
  about: string;
  units: Units;
}

export function readUnits(file: URL = unitsFile): Units {
  const document = JSON.parse(readFileSync(file, "utf8")) as UnitsDocument;
  return checkedUnits(document.units);
}

export function readPrices(file: URL = pricesFile): Prices {
  const prices = JSON.parse(readFileSync(file, "utf8")) as Prices;
  for (const name of priceNames) {
    const price = prices.prices[name];
    if (typeof price?.value !== "number" || typeof price.source !== "string")
      throw new Error(`prices.json: ${name} needs a numeric value and a source`);
  }
  for (const name of albLcuDimensionNames)
    if (typeof prices.albLcu?.[name] !== "number" || typeof prices.albLcu.source !== "string")
      throw new Error(`prices.json: albLcu.${name} needs a numeric value and albLcu a source`);
  for (const name of nlbLcuDimensionNames)
    if (typeof prices.nlbLcu?.[name] !== "number" || typeof prices.nlbLcu.source !== "string")
      throw new Error(`prices.json: nlbLcu.${name} needs a numeric value and nlbLcu a source`);
  return prices;
}

/** Every unit present, with a number, a kind and a date: a unit without provenance is refused. */
export function checkedUnits(units: Partial<Record<string, Unit>>): Units {
  for (const name of unitNames) {
    const unit = units[name];
    if (!unit) throw new Error(`units.json: ${name} is missing`);
    if (!Number.isFinite(unit.value) || unit.value < 0)
      throw new Error(`units.json: ${name} must be a number ≥ 0`);
    if (!unitKinds.includes(unit.kind)) throw new Error(`units.json: ${name} has no known kind`);
    if (!unit.how || !unit.date) throw new Error(`units.json: ${name} must say how and when it was taken`);
  }
  return units as Units;
}

/** What a measurement replaces in one unit: its value and how, where and when it was taken. */
export interface Measurement {
  value: number;
  how: string;
  machine: string;
  date: string;
}

/**
 * Writes measurements over the named units of units.json, leaving every other unit, and the file's
 * layout of keys, as they were. The bench calls this with what it measured.
 */
export function recordMeasurements(
  measurements: Partial<Record<UnitName, Measurement>>,
  file: URL = unitsFile,
): void {
  const document = JSON.parse(readFileSync(file, "utf8")) as UnitsDocument;
  for (const [name, measurement] of Object.entries(measurements) as [UnitName, Measurement][]) {
    const unit = document.units[name];
    if (!unit) throw new Error(`units.json has no unit ${name}`);
    document.units[name] = { ...unit, ...measurement, kind: "measured" };
  }
  checkedUnits(document.units);
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
}

/** The units with some values replaced (`--set name=value`), kept apart from what the files say. */
export function withValues(units: Units, values: Partial<Record<UnitName, number>>): Units {
  const changed = { ...units };
  for (const [name, value] of Object.entries(values) as [UnitName, number][]) {
    changed[name] = { ...units[name], value, kind: "assumption", how: "set on the command line" };
  }
  return changed;
}

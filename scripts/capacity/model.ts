/**
 * The capacity model: a fleet's size and heartbeat interval, Beacon's per-heartbeat units and AWS list
 * prices in; the AWS units each deployment option uses and what they cost a month out. Pure: no files,
 * no clock, no network.
 */
import {
  type AlbLcu,
  type CacheNodeType,
  type Deployment,
  type NlbLcu,
  type Price,
  type Prices,
  serverKeyNames,
  setupUnitOf,
  type Units,
} from "./inputs.js";

export interface Load {
  agents: number;
  intervalSeconds: number;
  /**
   * The share of agents that keep their connection between heartbeats (MiNiFi Java: OkHttp's pool); the rest
   * open one, with a full mutual-TLS handshake, for every request (MiNiFi C++).
   */
  javaShare: number;
}

export const optionIds = ["httpApiLambda", "albLambda", "albFargate", "nlbFargate"] as const;
export type OptionId = (typeof optionIds)[number];

export const optionNames: Record<OptionId, string> = {
  httpApiLambda: "HTTP API + Lambda",
  albLambda: "ALB (mutual TLS) + Lambda",
  albFargate: "ALB + ECS Fargate arm64",
  nlbFargate: "NLB (TCP) + ECS Fargate arm64",
};

/** One line of a bill: what is used, how much of it a month (or how many), and its monthly cost. */
export interface CostLine {
  item: string;
  quantity: number;
  quantityUnit: string;
  monthly: number;
  note?: string;
}

export interface CacheSizing {
  scriptsPerSecond: number;
  memoryGiB: number;
  nodeType: string;
  shards: number;
  nodes: number;
  nodeBasedMonthly: number;
  ecpuPerSecond: number;
  serverlessMonthly: number;
  chosen: "node-based" | "serverless";
}

export interface StreamSizing {
  recordsPerSecond: number;
  bytesPerSecond: number;
  provisionedShards: number;
  provisionedMonthly: number;
  onDemandMonthly: number;
  chosen: "provisioned" | "on-demand";
}

export interface OptionEstimate {
  id: OptionId;
  name: string;
  /** What this option alone uses; the shared lines come on top. */
  lines: CostLine[];
  monthly: number;
}

export interface Estimate {
  load: Load;
  heartbeatsPerSecond: number;
  heartbeatsPerMonth: number;
  lambdaBilledMs: number;
  lambdaConcurrency: number;
  albLcus: { lambdaTargets: number; containerTargets: number };
  fargateTasks: number;
  /** NLCUs of the NLB option, and its tasks, which terminate mutual TLS themselves. */
  nlbLcus: number;
  nlbFargateTasks: number;
  cache: CacheSizing;
  stream: StreamSizing;
  checkpointWriteUnitsPerSecond: number;
  shared: CostLine[];
  sharedMonthly: number;
  options: OptionEstimate[];
  cheapest: OptionId;
}

const GIB = 1024 ** 3;
/** Kinesis on-demand bills each record rounded up to 1 KB; a PUT payload unit is 25 KB. */
const KINESIS_BILLING_KB = 1024;
const PUT_PAYLOAD_UNIT_BYTES = 25 * 1024;
/** A provisioned shard takes 1 MB/s or 1,000 records/s of writes. */
const SHARD_RECORDS_PER_SECOND = 1_000;
const SHARD_BYTES_PER_SECOND = 1024 * 1024;
const DYNAMODB_WRITE_UNIT_BYTES = 1024;
/** START, END and REPORT: the platform's lines for each invocation below systemLogLevel WARN. */
const LAMBDA_PLATFORM_LINES = 3;

/** The cost of a monthly quantity at a price, walking its tiers when it has them. */
export function priced(price: Price, quantity: number): number {
  if (!price.tiers) return quantity * price.value;
  let cost = 0;
  let below = 0;
  for (const tier of price.tiers) {
    const top = tier.upTo ?? Number.POSITIVE_INFINITY;
    const inTier = Math.max(0, Math.min(quantity, top) - below);
    cost += inTier * tier.value;
    below = top;
    if (quantity <= top) break;
  }
  return cost;
}

const line = (
  item: string,
  quantity: number,
  quantityUnit: string,
  monthly: number,
  note?: string,
): CostLine =>
  note === undefined
    ? { item, quantity, quantityUnit, monthly }
    : { item, quantity, quantityUnit, monthly, note };

const sum = (lines: CostLine[]) => lines.reduce((total, each) => total + each.monthly, 0);

/** What CloudWatch Logs ingests for `events` log events of `bytes` in all: nothing when nothing is written. */
const logEventBytes = (bytes: number, events: number, units: Units): number =>
  bytes > 0 ? bytes + events * units.logEventOverheadBytes.value : 0;

/** Lambda's billed duration of one steady heartbeat: its CPU at the function's share of a vCPU, then its waits. */
export function lambdaBilledMs(units: Units): number {
  const vcpuShare = Math.min(1, units.lambdaMemoryMb.value / units.lambdaMemoryMbPerVcpu.value);
  const wallMs =
    units.handlerCpuMsOneAtATime.value / vcpuShare +
    units.cacheRoundTripsPerHeartbeat.value * units.cacheRoundTripMs.value +
    (units.streamRecordsPerHeartbeat.value > 0 ? units.streamPutMs.value : 0);
  return Math.ceil(wallMs);
}

export function sizeCache(
  units: Units,
  prices: Prices,
  deployment: Deployment,
  agents: number,
  heartbeatsPerSecond: number,
): CacheSizing {
  const scriptsPerSecond = heartbeatsPerSecond * units.cacheRoundTripsPerHeartbeat.value;
  const memoryGiB = (agents * units.cacheMemoryBytesPerAgent.value) / GIB;
  const shardsForThroughput = Math.ceil(
    scriptsPerSecond / (units.cacheScriptsPerSecondPerShard.value * deployment.cacheTargetUtilisation),
  );
  const nodesPerShard = 1 + deployment.cacheReplicasPerShard;
  const candidates = prices.cacheNodes.types.map((node: CacheNodeType) => {
    const shardsForMemory = Math.ceil(memoryGiB / (node.memoryGiB * deployment.cacheUsableMemoryFraction));
    const shards = Math.max(1, shardsForThroughput, shardsForMemory);
    return { node, shards, monthly: shards * nodesPerShard * node.hourly * deployment.hoursPerMonth };
  });
  const best = candidates.reduce((a, b) => (b.monthly < a.monthly ? b : a));
  const ecpuPerSecond = scriptsPerSecond * units.cacheEcpuPerRoundTrip.value;
  const secondsPerMonth = deployment.hoursPerMonth * 3600;
  const serverlessMonthly =
    priced(prices.prices.cacheServerlessEcpu, ecpuPerSecond * secondsPerMonth) +
    priced(prices.prices.cacheServerlessGbHour, Math.max(0.1, memoryGiB) * deployment.hoursPerMonth);
  return {
    scriptsPerSecond,
    memoryGiB,
    nodeType: best.node.type,
    shards: best.shards,
    nodes: best.shards * nodesPerShard,
    nodeBasedMonthly: best.monthly,
    ecpuPerSecond,
    serverlessMonthly,
    chosen: serverlessMonthly < best.monthly ? "serverless" : "node-based",
  };
}

export function sizeStream(
  units: Units,
  prices: Prices,
  deployment: Deployment,
  heartbeatsPerSecond: number,
): StreamSizing {
  const recordBytes = units.eventBytes.value + units.partitionKeyBytes.value;
  const recordsPerSecond = heartbeatsPerSecond * units.streamRecordsPerHeartbeat.value;
  const bytesPerSecond = recordsPerSecond * recordBytes;
  const provisionedShards = Math.max(
    1,
    Math.ceil(recordsPerSecond / SHARD_RECORDS_PER_SECOND),
    Math.ceil(bytesPerSecond / SHARD_BYTES_PER_SECOND),
  );
  const recordsPerMonth = recordsPerSecond * deployment.hoursPerMonth * 3600;
  const { prices: p } = prices;
  const provisionedMonthly =
    priced(p.kinesisShardHour, provisionedShards * deployment.hoursPerMonth) +
    priced(p.kinesisPutPayloadUnit, recordsPerMonth * Math.ceil(recordBytes / PUT_PAYLOAD_UNIT_BYTES));
  const billedGib =
    (recordsPerMonth * Math.ceil(recordBytes / KINESIS_BILLING_KB) * KINESIS_BILLING_KB) / GIB;
  // One consumer reads every record once (the analysis downstream); on-demand bills reads by the GB too.
  const onDemandMonthly =
    priced(p.kinesisOnDemandStreamHour, deployment.hoursPerMonth) +
    priced(p.kinesisOnDemandGbIn, billedGib) +
    priced(p.kinesisOnDemandGbOut, (recordsPerMonth * recordBytes) / GIB);
  return {
    recordsPerSecond,
    bytesPerSecond,
    provisionedShards,
    provisionedMonthly,
    onDemandMonthly,
    chosen: onDemandMonthly < provisionedMonthly ? "on-demand" : "provisioned",
  };
}

/** An agent is checkpointed at most at the checkpoint interval, and only when it heartbeats. */
export const checkpointsPerAgentHour = (units: Units, load: Load): number =>
  Math.min(units.checkpointsPerAgentHour.value, 3600 / load.intervalSeconds);

/**
 * Write units one periodic checkpoint costs: 1 per started KB of the last-seen item it writes (1 at least),
 * in the table and again in every index that holds it. The agent's profile, which the indexes copy, is
 * written only when the agent's class, manifest, flow or device changes, which a steady fleet does not.
 */
export function writeUnitsPerCheckpoint(units: Units): number {
  return (
    Math.max(1, Math.ceil(units.lastSeenItemBytes.value / DYNAMODB_WRITE_UNIT_BYTES)) *
    (1 + units.indexesHoldingLastSeenItem.value)
  );
}

/**
 * New connections a kept-alive agent opens per heartbeat: a fraction while its idle connection outlives the
 * interval both in its own pool and at the ingress (it reconnects when the ingress ends the connection's
 * life), else one. An interval as long as the idle timeout is a race the ingress may win: counted as one.
 */
export function javaConnectionsPerHeartbeat(units: Units, load: Load): number {
  const keptIdle = Math.min(units.javaPoolIdleSeconds.value, units.ingressIdleTimeoutSeconds.value);
  return load.intervalSeconds < keptIdle
    ? load.intervalSeconds / units.ingressConnectionLifetimeSeconds.value
    : 1;
}

/** New TLS connections per heartbeat over the fleet's mix of agents. */
const newConnectionsPerHeartbeat = (units: Units, load: Load): number =>
  load.javaShare * javaConnectionsPerHeartbeat(units, load) +
  (1 - load.javaShare) * units.cppConnectionsPerHeartbeat.value;

/**
 * Active connections in a minute: a kept connection is active in every minute, a connection per heartbeat only
 * in the minutes with one.
 */
function activeConnectionsPerMinute(units: Units, load: Load, heartbeatsPerSecond: number): number {
  const keptAlive = javaConnectionsPerHeartbeat(units, load) < 1 ? load.javaShare : 0;
  return load.agents * keptAlive + (1 - keptAlive) * Math.min(load.agents, heartbeatsPerSecond * 60);
}

/** A heartbeat's request and reply, headers and bodies: the bytes an ingress forwards for it. */
const exchangeBytes = (units: Units): number =>
  units.requestBodyBytes.value +
  units.requestHeaderBytes.value +
  units.responseBodyBytes.value +
  units.responseHeaderBytes.value;

/**
 * What the server sends to set up a connection: its certificate's measured figure with Node's default session
 * tickets, less what stateful tickets save where Beacon's own agent TLS server terminates TLS.
 */
export const setupBytesOut = (units: Units, deployment: Deployment, beaconTerminatesTls: boolean): number =>
  units[setupUnitOf[deployment.serverKey]].value -
  (beaconTerminatesTls ? units.sessionTicketBytesSaved.value : 0);

const nlbLcuDimensions = ["new flows", "active flows", "processed bytes"] as const;
type NlbLcuDimension = (typeof nlbLcuDimensions)[number];

/**
 * NLCUs a TCP listener needs for this load: the largest of its three dimensions, and which one that is. With TCP
 * pass-through every byte of a flow is processed, both ways: the exchanges, each connection's handshake (what the
 * agent service sends, `serverSetupBytes`, and what the agent sends) and their TCP/IP headers.
 */
export function nlbLcus(
  units: Units,
  load: Load,
  heartbeatsPerSecond: number,
  serverSetupBytes: number,
  lcu: NlbLcu,
): { lcus: number; dominant: NlbLcuDimension } {
  const connectionsPerHeartbeat = newConnectionsPerHeartbeat(units, load);
  const bytesPerHeartbeat =
    exchangeBytes(units) +
    units.tcpIpHeaderBytesPerHeartbeat.value +
    connectionsPerHeartbeat *
      (serverSetupBytes + units.tlsSetupBytesInClient.value + units.tcpIpHeaderBytesPerConnection.value);
  const byDimension: Record<NlbLcuDimension, number> = {
    "new flows": (heartbeatsPerSecond * connectionsPerHeartbeat) / lcu.newConnectionsPerSecond,
    "active flows":
      activeConnectionsPerMinute(units, load, heartbeatsPerSecond) / lcu.activeConnectionsPerMinute,
    "processed bytes": (heartbeatsPerSecond * 3600 * bytesPerHeartbeat) / GIB / lcu.gbPerHour,
  };
  const dominant = nlbLcuDimensions.reduce((a, b) => (byDimension[b] > byDimension[a] ? b : a));
  return { lcus: byDimension[dominant], dominant };
}

const lcuDimensions = [
  "new connections",
  "active connections",
  "processed bytes",
  "rule evaluations",
] as const;
type LcuDimension = (typeof lcuDimensions)[number];

/**
 * LCUs an ALB needs for this load: the largest of its four dimensions, and which one that is. `lcu` is what one
 * LCU covers (prices.json's albLcu); a mutual-TLS listener's LCU covers fewer active connections.
 */
export function albLcus(
  units: Units,
  deployment: Deployment,
  load: Load,
  heartbeatsPerSecond: number,
  gbPerHourPerLcu: number,
  lcu: AlbLcu,
): { lcus: number; dominant: LcuDimension } {
  const gbPerHour = (heartbeatsPerSecond * 3600 * exchangeBytes(units)) / GIB;
  const billedRules = Math.max(0, deployment.albRuleEvaluationsPerRequest - lcu.freeRulesPerRequest);
  const activeConnectionsPerLcu = deployment.albMutualTls
    ? lcu.activeConnectionsPerMinuteMutualTls
    : lcu.activeConnectionsPerMinute;
  const byDimension: Record<LcuDimension, number> = {
    "new connections":
      (heartbeatsPerSecond * newConnectionsPerHeartbeat(units, load)) / lcu.newConnectionsPerSecond,
    "active connections":
      activeConnectionsPerMinute(units, load, heartbeatsPerSecond) / activeConnectionsPerLcu,
    "processed bytes": gbPerHour / gbPerHourPerLcu,
    "rule evaluations": (heartbeatsPerSecond * billedRules) / lcu.ruleEvaluationsPerSecond,
  };
  const dominant = lcuDimensions.reduce((a, b) => (byDimension[b] > byDimension[a] ? b : a));
  return { lcus: byDimension[dominant], dominant };
}

export function estimate(load: Load, units: Units, prices: Prices, deployment: Deployment): Estimate {
  const { prices: p } = prices;
  const hours = deployment.hoursPerMonth;
  const heartbeatsPerSecond = load.agents / load.intervalSeconds;
  const heartbeatsPerMonth = heartbeatsPerSecond * hours * 3600;

  const cache = sizeCache(units, prices, deployment, load.agents, heartbeatsPerSecond);
  const stream = sizeStream(units, prices, deployment, heartbeatsPerSecond);
  const checkpointsPerMonth = load.agents * checkpointsPerAgentHour(units, load) * hours;
  const checkpointWriteUnits = writeUnitsPerCheckpoint(units);
  const recordsPerMonth = stream.recordsPerSecond * hours * 3600;
  // The SDK sends each record base64-encoded in a JSON body, signed: what the Kinesis endpoint processes.
  const endpointGib =
    (recordsPerMonth * (units.eventBytes.value * (4 / 3) + units.streamPutOverheadBytes.value)) / GIB;
  const connectionsPerHeartbeat = newConnectionsPerHeartbeat(units, load);
  // Data transfer out depends on who terminates TLS: the ALB or API Gateway, or Beacon's agent service.
  const dataTransferLine = (beaconTerminatesTls: boolean) => {
    const setupBytes = setupBytesOut(units, deployment, beaconTerminatesTls);
    const gib =
      (heartbeatsPerMonth *
        (units.responseBodyBytes.value +
          units.responseHeaderBytes.value +
          connectionsPerHeartbeat * setupBytes)) /
      GIB;
    return line(
      "Data transfer out (replies, TLS setup)",
      gib,
      "GiB",
      priced(p.dataTransferOutGb, gib),
      `${round(connectionsPerHeartbeat, 3)} new connection(s) per heartbeat × ${round(setupBytes)} B ` +
        `(${serverKeyNames[deployment.serverKey]} certificate${beaconTerminatesTls ? ", stateful tickets" : ""})`,
    );
  };
  const logGib =
    // The unit counts its log events' overhead: the line is a stream consumer batch's, shared by its heartbeats.
    (heartbeatsPerMonth * logEventBytes(units.metricLineBytesPerHeartbeat.value, 0, units)) / GIB;
  const storedItemGib =
    (load.agents *
      (units.agentItemBytes.value * (1 + units.indexesHoldingAgentItem.value) +
        units.lastSeenItemBytes.value * (1 + units.indexesHoldingLastSeenItem.value))) /
    GIB;

  const shared: CostLine[] = [
    cache.chosen === "node-based"
      ? line(
          `ElastiCache Valkey, ${cache.shards} shard(s) × ${1 + deployment.cacheReplicasPerShard} ${cache.nodeType}`,
          cache.nodes,
          "nodes",
          cache.nodeBasedMonthly,
          `serverless would cost $${round(cache.serverlessMonthly)}`,
        )
      : line(
          "ElastiCache Serverless Valkey",
          cache.ecpuPerSecond,
          "ECPU/s",
          cache.serverlessMonthly,
          `node-based (${cache.shards} × ${cache.nodeType}) would cost $${round(cache.nodeBasedMonthly)}`,
        ),
    stream.chosen === "provisioned"
      ? line(
          `Kinesis provisioned, ${stream.provisionedShards} shard(s)`,
          recordsPerMonth,
          "records",
          stream.provisionedMonthly,
          `on-demand would cost $${round(stream.onDemandMonthly)}`,
        )
      : line(
          "Kinesis on-demand",
          recordsPerMonth,
          "records",
          stream.onDemandMonthly,
          `provisioned (${stream.provisionedShards} shards) would cost $${round(stream.provisionedMonthly)}`,
        ),
    line(
      "DynamoDB on-demand checkpoint writes",
      checkpointsPerMonth * checkpointWriteUnits,
      "write units",
      priced(p.dynamoDbWriteRequestUnit, checkpointsPerMonth * checkpointWriteUnits),
      `${checkpointWriteUnits} write units per checkpoint`,
    ),
    line(
      "DynamoDB heartbeat requests",
      heartbeatsPerMonth * units.dynamoDbRequestsPerHeartbeat.value,
      "read units",
      priced(p.dynamoDbReadRequestUnit, heartbeatsPerMonth * units.dynamoDbRequestsPerHeartbeat.value),
    ),
    line("DynamoDB storage (agent items)", storedItemGib, "GiB", priced(p.dynamoDbGbMonth, storedItemGib)),
    line(
      `VPC interface endpoints, ${deployment.interfaceEndpoints} × ${deployment.availabilityZones} AZ`,
      endpointGib,
      "GiB processed",
      priced(
        p.interfaceEndpointAzHour,
        deployment.interfaceEndpoints * deployment.availabilityZones * hours,
      ) + priced(p.interfaceEndpointGb, endpointGib),
    ),
    line("CloudWatch Logs ingestion (metric lines)", logGib, "GiB", priced(p.logsIngestedGb, logGib)),
  ];
  const sharedMonthly = sum(shared);

  const billedMs = lambdaBilledMs(units);
  const lambdaGbSeconds = heartbeatsPerMonth * (billedMs / 1000) * (units.lambdaMemoryMb.value / 1024);
  const platformLogGib =
    (heartbeatsPerMonth *
      logEventBytes(units.lambdaPlatformLogBytesPerInvocation.value, LAMBDA_PLATFORM_LINES, units)) /
    GIB;
  const lambdaLines = [
    line("Lambda requests", heartbeatsPerMonth, "requests", priced(p.lambdaRequest, heartbeatsPerMonth)),
    line(
      `Lambda duration, ${billedMs} ms × ${units.lambdaMemoryMb.value} MB arm64`,
      lambdaGbSeconds,
      "GB-s",
      priced(p.lambdaArmGbSecond, lambdaGbSeconds),
    ),
    line(
      "CloudWatch Logs ingestion (Lambda's START, END and REPORT lines)",
      platformLogGib,
      "GiB",
      priced(p.logsIngestedGb, platformLogGib),
    ),
  ];
  const lcu = prices.albLcu;
  const lcusLambda = albLcus(units, deployment, load, heartbeatsPerSecond, lcu.gbPerHourLambda, lcu);
  const lcusContainers = albLcus(units, deployment, load, heartbeatsPerSecond, lcu.gbPerHourContainers, lcu);
  const albLines = ({ lcus, dominant }: { lcus: number; dominant: LcuDimension }) => [
    line("ALB hours", hours, "hours", priced(p.albHour, hours)),
    line("ALB LCUs", lcus, "LCU (average)", priced(p.albLcuHour, lcus * hours), `${dominant} dominate`),
    ...(deployment.albMutualTls
      ? [line("ALB trust store (mutual TLS)", hours, "hours", priced(p.albTrustStoreHour, hours))]
      : []),
  ];
  // The gateway's CPU includes the TLS the ALB terminates on AWS: an upper bound; the handler's alone, a lower one.
  const vcpusFor = (cpuMs: number) =>
    (heartbeatsPerSecond * cpuMs) / 1000 / deployment.fargateTargetCpuUtilisation;
  const vcpus = vcpusFor(units.gatewayAndHandlerCpuMs.value);
  const tasksFor = (taskVcpus: number) =>
    Math.max(deployment.fargateMinTasks, Math.ceil(taskVcpus / deployment.fargateTaskVcpu));
  const fargateTasks = tasksFor(vcpus);
  // Behind an NLB the tasks terminate mutual TLS themselves: every new connection's handshake is their CPU.
  const nlbVcpus = vcpusFor(
    units.gatewayAndHandlerCpuMs.value + connectionsPerHeartbeat * units.tlsHandshakeCpuMs.value,
  );
  const nlbFargateTasks = tasksFor(nlbVcpus);
  const nlb = nlbLcus(
    units,
    load,
    heartbeatsPerSecond,
    setupBytesOut(units, deployment, true),
    prices.nlbLcu,
  );
  const extraEndpointHours = deployment.fargateExtraInterfaceEndpoints * deployment.availabilityZones * hours;
  const fargateLine = (name: string, tasks: number, vcpu: number, memoryGb: number, note?: string) =>
    line(
      `${name}, ${vcpu} vCPU / ${memoryGb} GB arm64`,
      tasks,
      "tasks",
      priced(p.fargateArmVcpuHour, tasks * hours * vcpu) +
        priced(p.fargateArmGbHour, tasks * hours * memoryGb),
      note,
    );
  const taskEndpointsLine = line(
    `VPC interface endpoints for the tasks (ECR ×2, Logs) × ${deployment.availabilityZones} AZ`,
    deployment.fargateExtraInterfaceEndpoints * deployment.availabilityZones,
    "endpoint-AZs",
    priced(p.interfaceEndpointAzHour, extraEndpointHours),
  );

  const options: OptionEstimate[] = [
    {
      id: "httpApiLambda",
      lines: [
        line(
          "API Gateway HTTP API requests",
          heartbeatsPerMonth,
          "requests",
          priced(p.httpApiRequest, heartbeatsPerMonth),
        ),
        ...lambdaLines,
        dataTransferLine(false),
      ],
    },
    {
      id: "albLambda",
      lines: [
        ...albLines(lcusLambda),
        ...lambdaLines,
        fargateLine(
          "Debug bundles' task",
          1,
          deployment.debugBundleTaskVcpu,
          deployment.debugBundleTaskMemoryGb,
          "always on: a Lambda target takes 1 MB of body at most",
        ),
        taskEndpointsLine,
        dataTransferLine(false),
      ],
    },
    {
      id: "albFargate",
      lines: [
        ...albLines(lcusContainers),
        fargateLine(
          "Fargate tasks",
          fargateTasks,
          deployment.fargateTaskVcpu,
          deployment.fargateTaskMemoryGb,
          `${round(vcpus, 2)} vCPU at ${deployment.fargateTargetCpuUtilisation * 100} % target utilisation ` +
            `(the handler alone: ${round(vcpusFor(units.handlerCpuMsConcurrent.value), 2)})`,
        ),
        taskEndpointsLine,
        dataTransferLine(false),
      ],
    },
    {
      id: "nlbFargate",
      lines: [
        line("NLB hours", hours, "hours", priced(p.nlbHour, hours)),
        line(
          "NLB NLCUs (TCP)",
          nlb.lcus,
          "NLCU (average)",
          priced(p.nlbLcuHour, nlb.lcus * hours),
          `${nlb.dominant} dominate`,
        ),
        fargateLine(
          "Fargate tasks terminating mutual TLS",
          nlbFargateTasks,
          deployment.fargateTaskVcpu,
          deployment.fargateTaskMemoryGb,
          `${round(nlbVcpus, 2)} vCPU at ${deployment.fargateTargetCpuUtilisation * 100} % target utilisation, ` +
            `${round(connectionsPerHeartbeat, 3)} handshake(s) per heartbeat × ${round(units.tlsHandshakeCpuMs.value, 2)} ms`,
        ),
        taskEndpointsLine,
        dataTransferLine(true),
      ],
    },
  ].map(({ id, lines }) => ({
    id: id as OptionId,
    name: optionNames[id as OptionId],
    lines,
    monthly: sum(lines) + sharedMonthly,
  }));
  const cheapest = options.reduce((a, b) => (b.monthly < a.monthly ? b : a)).id;

  return {
    load,
    heartbeatsPerSecond,
    heartbeatsPerMonth,
    lambdaBilledMs: billedMs,
    lambdaConcurrency: heartbeatsPerSecond * (billedMs / 1000),
    albLcus: { lambdaTargets: lcusLambda.lcus, containerTargets: lcusContainers.lcus },
    fargateTasks,
    nlbLcus: nlb.lcus,
    nlbFargateTasks,
    cache,
    stream,
    checkpointWriteUnitsPerSecond:
      (load.agents * checkpointsPerAgentHour(units, load) * checkpointWriteUnits) / 3600,
    shared,
    sharedMonthly,
    options,
    cheapest,
  };
}

export const round = (value: number, digits = 0): string =>
  value.toLocaleString("en-US", { maximumFractionDigits: digits });

export const optionOf = (estimated: Estimate, id: OptionId): OptionEstimate =>
  estimated.options.find((option) => option.id === id) as OptionEstimate;

/**
 * The account quotas and per-partition limits a fleet's load meets, option by option: which it crosses, and
 * what to raise or shard. Limits are AWS's defaults per account and region (Service Quotas) unless they are
 * Beacon's own settings, which say where they are set.
 */
import type { Deployment, Units } from "./inputs.js";
import { checkpointsPerAgentHour, type Estimate, type OptionId, writeUnitsPerCheckpoint } from "./model.js";

export interface QuotaCheck {
  name: string;
  /** The options it applies to; all three when it is a shared part's. */
  options: readonly OptionId[];
  need: number;
  limit: number;
  unit: string;
  crossed: boolean;
  action: string;
}

const LAMBDA_OPTIONS = ["httpApiLambda", "albLambda"] as const;
const ALL_OPTIONS = ["httpApiLambda", "albLambda", "albFargate", "nlbFargate"] as const;

/** AWS's default quotas and hard limits the checks use. */
export const Limits = {
  apiGatewayAccountRequestsPerSecond: 10_000,
  /** Beacon's prod stage throttle for the agent API (agentThrottle in infra/lib/config.ts). */
  beaconAgentThrottleRequestsPerSecond: 5_000,
  lambdaConcurrentExecutions: 1_000,
  kinesisShardsPerAccount: 500,
  kinesisOnDemandRecordsPerSecond: 200_000,
  kinesisOnDemandBytesPerSecond: 200 * 1024 * 1024,
  cacheNodesPerCluster: 90,
  /** Beacon's prod cap on the serverless cache (cacheLimits in infra/lib/config.ts). */
  beaconCacheEcpuPerSecond: 100_000,
  beaconCacheDataStorageGb: 10,
  dynamoDbWriteUnitsPerPartition: 1_000,
  dynamoDbTableWriteUnitsPerSecond: 40_000,
  albLcusBeforeReservation: 100,
} as const;

/**
 * `largestTenantAgents`: the agents of the largest tenant, whose keys share one cache shard (its hash tag)
 * and whose agents share one partition key of the tenant index.
 */
export function checkQuotas(
  estimated: Estimate,
  units: Units,
  deployment: Deployment,
  largestTenantAgents: number = estimated.load.agents,
): QuotaCheck[] {
  const { heartbeatsPerSecond, cache, stream } = estimated;
  const tenantScriptsPerSecond =
    (largestTenantAgents / estimated.load.intervalSeconds) * units.cacheRoundTripsPerHeartbeat.value;
  const shardScripts = units.cacheScriptsPerSecondPerShard.value * deployment.cacheTargetUtilisation;
  const checkpoints = checkpointsPerAgentHour(units, estimated.load);
  const itemWriteUnits = writeUnitsPerCheckpoint(units) / (1 + units.indexesHoldingLastSeenItem.value);
  // Checkpoints reach the tenant index only when it holds the last-seen item (it does not: no index does).
  const tenantIndexWriteUnits =
    units.indexesHoldingLastSeenItem.value > 0
      ? (largestTenantAgents * checkpoints * itemWriteUnits) / 3600
      : 0;
  const tableWriteUnits = (estimated.load.agents * checkpoints * itemWriteUnits) / 3600;
  const check = (
    name: string,
    options: readonly OptionId[],
    need: number,
    limit: number,
    unit: string,
    action: string,
  ): QuotaCheck => ({ name, options, need, limit, unit, crossed: need > limit, action });

  return [
    check(
      "API Gateway requests per second (account and region)",
      ["httpApiLambda"],
      heartbeatsPerSecond,
      Limits.apiGatewayAccountRequestsPerSecond,
      "requests/s",
      "ask AWS Support to raise the account throttle, or split agents over regions or accounts",
    ),
    check(
      "Beacon's agent API stage throttle (prod, infra/lib/config.ts)",
      ["httpApiLambda"],
      heartbeatsPerSecond,
      Limits.beaconAgentThrottleRequestsPerSecond,
      "requests/s",
      "raise agentThrottle in infra/lib/config.ts (it cannot exceed the account's throttle)",
    ),
    check(
      "Lambda concurrent executions (account and region)",
      LAMBDA_OPTIONS,
      estimated.lambdaConcurrency,
      Limits.lambdaConcurrentExecutions,
      "executions",
      "raise the account's concurrency quota (Service Quotas); leave headroom for a fleet reconnecting at once",
    ),
    check(
      "ALB LCUs before pre-provisioning (no hard quota)",
      ["albLambda", "albFargate"],
      Math.max(estimated.albLcus.lambdaTargets, estimated.albLcus.containerTargets),
      Limits.albLcusBeforeReservation,
      "LCU",
      "reserve LCUs (LCU reservation) ahead of a fleet-wide reconnect; the ALB otherwise scales on its own",
    ),
    check(
      "Kinesis shards per account (provisioned)",
      ALL_OPTIONS,
      stream.provisionedShards,
      Limits.kinesisShardsPerAccount,
      "shards",
      "raise the shard quota, or run on-demand",
    ),
    check(
      "Kinesis on-demand records per second per stream",
      ALL_OPTIONS,
      stream.recordsPerSecond,
      Limits.kinesisOnDemandRecordsPerSecond,
      "records/s",
      "shard the events over streams (by tenant), or run provisioned",
    ),
    check(
      "Kinesis on-demand write bytes per second per stream",
      ALL_OPTIONS,
      stream.bytesPerSecond,
      Limits.kinesisOnDemandBytesPerSecond,
      "bytes/s",
      "shard the events over streams (by tenant), or run provisioned",
    ),
    check(
      "One cache shard's heartbeat scripts for the largest tenant (its keys share a hash tag)",
      ALL_OPTIONS,
      tenantScriptsPerSecond,
      shardScripts,
      "scripts/s",
      "split the tenant's hash tag (e.g. by class) so that its agents spread over shards, or lengthen its interval",
    ),
    check(
      "ElastiCache nodes per cluster (cluster mode)",
      ALL_OPTIONS,
      cache.nodes,
      Limits.cacheNodesPerCluster,
      "nodes",
      "raise the nodes-per-cluster quota (up to 500), or run serverless",
    ),
    check(
      "Beacon's ECPU cap on the serverless cache it deploys today (prod, infra/lib/config.ts)",
      ALL_OPTIONS,
      cache.ecpuPerSecond,
      Limits.beaconCacheEcpuPerSecond,
      "ECPU/s",
      "raise cacheLimits.ecpuPerSecond in infra/lib/config.ts",
    ),
    check(
      "Beacon's storage cap on the serverless cache it deploys today (prod, infra/lib/config.ts)",
      ALL_OPTIONS,
      cache.memoryGiB,
      Limits.beaconCacheDataStorageGb,
      "GB",
      "raise cacheLimits.dataStorageGb in infra/lib/config.ts",
    ),
    check(
      "DynamoDB partition of the largest tenant's agents in the tenant index (gsi2)",
      ALL_OPTIONS,
      tenantIndexWriteUnits,
      Limits.dynamoDbWriteUnitsPerPartition,
      "write units/s",
      "shard the tenant index's partition key (T#<tenant>#AGENTS#<n>) or lengthen the checkpoint interval; index back-pressure throttles the table",
    ),
    check(
      "DynamoDB on-demand table write throughput (per table, and per index)",
      ALL_OPTIONS,
      tableWriteUnits,
      Limits.dynamoDbTableWriteUnitsPerSecond,
      "write units/s",
      "raise the table's throughput quota, or lengthen the checkpoint interval",
    ),
  ];
}

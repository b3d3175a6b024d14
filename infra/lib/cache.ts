import type { RemovalPolicy } from "aws-cdk-lib";
import {
  type ISecurityGroup,
  type IVpc,
  Port,
  SecurityGroup,
  type SubnetSelection,
} from "aws-cdk-lib/aws-ec2";
import { CfnServerlessCache } from "aws-cdk-lib/aws-elasticache";
import { Construct } from "constructs";
import type { StageSettings } from "./config.js";

export interface BeaconCacheProps {
  readonly name: string;
  readonly vpc: IVpc;
  readonly subnets: SubnetSelection;
  readonly limits: StageSettings["cacheLimits"];
  readonly removalPolicy: RemovalPolicy;
}

/**
 * ElastiCache Serverless for Valkey. Serverless caches only accept TLS, and its security group admits no one
 * until a function is bound to it, so the cache is reachable from Beacon's functions only.
 */
export class BeaconCache extends Construct {
  readonly securityGroup: ISecurityGroup;
  /** 6379 is the primary endpoint, 6380 the reader endpoint. */
  readonly ports = Port.tcpRange(6379, 6380);
  /** Valkey speaks the Redis protocol: `rediss` because the endpoint is TLS-only, a cluster client for its slots. */
  readonly url: string;
  /** The serverless cache's name: its metrics' `clusterId` dimension. */
  readonly name: string;

  constructor(scope: Construct, id: string, props: BeaconCacheProps) {
    super(scope, id);
    this.securityGroup = new SecurityGroup(this, "SecurityGroup", {
      vpc: props.vpc,
      description: "Beacon cache: Valkey clients (Beacon functions) only",
      allowAllOutbound: false,
    });
    const cache = new CfnServerlessCache(this, "Resource", {
      serverlessCacheName: props.name,
      description: "Beacon hot agent state",
      engine: "valkey",
      majorEngineVersion: "8",
      subnetIds: props.vpc.selectSubnets(props.subnets).subnetIds,
      securityGroupIds: [this.securityGroup.securityGroupId],
      cacheUsageLimits: {
        dataStorage: { maximum: props.limits.dataStorageGb, unit: "GB" },
        ecpuPerSecond: { maximum: props.limits.ecpuPerSecond },
      },
    });
    cache.applyRemovalPolicy(props.removalPolicy);
    this.name = props.name;
    this.url = `rediss://${cache.attrEndpointAddress}:${cache.attrEndpointPort}?cluster=true`;
  }
}

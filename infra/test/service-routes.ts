/**
 * Which AWS services each of Beacon's VPC functions calls, read from its bundle, and whether the network the
 * templates describe lets it reach them: a VPC endpoint of the service, a gateway endpoint in its subnets' route
 * tables, or a NAT route. Lambda gives a function in a VPC no other way out, so a call with none of these hangs
 * until the SDK's timeout on AWS, while every local test passes.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

type Properties = Record<string, unknown>;
interface CfnResource {
  readonly Type: string;
  readonly Properties?: Properties;
}
export interface CfnTemplate {
  readonly Resources: Record<string, CfnResource>;
  readonly Outputs?: Record<string, { Value: unknown; Export?: { Name: unknown } }>;
}

/** The two stacks of one variant; the stateless stack imports the network from the stateful one. */
export interface BeaconTemplates {
  readonly stateful: CfnTemplate;
  readonly stateless: CfnTemplate;
}

/**
 * The VPC endpoint service (`com.amazonaws.<region>.<name>`) that serves each AWS SDK client a function may
 * bundle. A client missing here fails the test that reads the bundles, until someone says which endpoint it
 * needs: its endpoint prefix is not always the endpoint service's name (Kinesis is `kinesis-streams`).
 */
export const endpointServiceOfClient: Readonly<Record<string, string>> = {
  "@aws-sdk/client-dynamodb": "dynamodb",
  "@aws-sdk/client-kinesis": "kinesis-streams",
  "@aws-sdk/client-lambda": "lambda",
  "@aws-sdk/client-s3": "s3",
  "@aws-sdk/client-secrets-manager": "secretsmanager",
  "@aws-sdk/client-ssm": "ssm",
};

/** An AWS service a function's code calls, and the SDK client package it calls it with. */
export interface ServiceCall {
  readonly client: string;
  readonly service: string;
}

/**
 * The service clients in a function's code, named by the package paths of its source maps (every one in the
 * folder, its chunks' too, unless one is named). esbuild keeps only the modules the function's code reaches, so a
 * client a shared module imports but the function never constructs is not there (the agent API bundles no Secrets
 * Manager client), and minification cannot hide a path. Only `@aws-sdk/client-*` packages count: the STS and SSO clients of `@aws-sdk/nested-clients` belong
 * to credential providers the SDK's default chain tries only after environment credentials, which Lambda
 * always sets.
 */
export function serviceCallsInBundle(bundleDirectory: string, sourceMapName?: string): ServiceCall[] {
  const mapFiles =
    sourceMapName === undefined
      ? readdirSync(bundleDirectory, { recursive: true, encoding: "utf8" }).filter((file) =>
          file.endsWith(".map"),
        )
      : [sourceMapName];
  const sources = mapFiles.flatMap(
    (file) =>
      (JSON.parse(readFileSync(join(bundleDirectory, file), "utf8")) as { sources: string[] }).sources,
  );
  const clients = new Set(
    sources.flatMap((source) => /node_modules\/(@aws-sdk\/client-[^/]+)\//.exec(source)?.[1] ?? []),
  );
  return [...clients].sort().map((client) => {
    const service = endpointServiceOfClient[client];
    if (service === undefined)
      throw new Error(
        `${bundleDirectory} bundles ${client}: add its VPC endpoint service to endpointServiceOfClient`,
      );
    return { client, service };
  });
}

/**
 * What ECS itself calls for a Fargate task, from the task's own network: ECR for its image (the API, the registry
 * and S3, which holds the layers) and CloudWatch Logs for the awslogs driver.
 */
export const fargateTaskCalls: ServiceCall[] = [
  { client: "ECS: image pull", service: "ecr.api" },
  { client: "ECS: image pull", service: "ecr.dkr" },
  { client: "ECS: image layers", service: "s3" },
  { client: "ECS: awslogs driver", service: "logs" },
];

type Stack = keyof BeaconTemplates;
/** A resource of one of the two templates, as `<stack>/<logical id>`. */
type ResourceKey = string;
const keyOf = (stack: Stack, logicalId: string): ResourceKey => `${stack}/${logicalId}`;
const logicalIdOf = (key: ResourceKey): string => key.slice(key.indexOf("/") + 1);
const stackOf = (key: ResourceKey): Stack => key.slice(0, key.indexOf("/")) as Stack;

interface SecurityGroupRule {
  readonly IpProtocol: string;
  readonly FromPort?: number;
  readonly ToPort?: number;
  readonly CidrIp?: unknown;
  readonly SourceSecurityGroupId?: unknown;
  readonly DestinationSecurityGroupId?: unknown;
  readonly DestinationPrefixListId?: unknown;
}

/** Addresses a security group rule names, as far as the templates say: a peer it admits or not. */
interface Peer {
  readonly vpc: ResourceKey;
  readonly subnetCidrs: string[];
  readonly securityGroups: ResourceKey[];
}

const HTTPS = 443;

/** One VPC function of the stateless stack: where it runs and what its network lets it reach. */
export interface VpcFunction {
  readonly logicalId: string;
  readonly vpc: ResourceKey;
  readonly subnets: ResourceKey[];
  readonly securityGroups: ResourceKey[];
}

/** The network of a variant, as its two templates describe it. */
export class BeaconNetwork {
  private readonly resources = new Map<ResourceKey, CfnResource>();

  constructor(private readonly templates: BeaconTemplates) {
    for (const stack of ["stateful", "stateless"] as const)
      for (const [logicalId, resource] of Object.entries(templates[stack].Resources))
        this.resources.set(keyOf(stack, logicalId), resource);
  }

  /** Every Lambda function of the stateless stack placed in a VPC; functions outside one reach AWS directly. */
  vpcFunctions(): VpcFunction[] {
    return this.ofType("AWS::Lambda::Function")
      .filter(([, properties]) => properties.VpcConfig !== undefined)
      .map(([key, properties]) => {
        const { SubnetIds, SecurityGroupIds } = properties.VpcConfig as Record<string, unknown[]>;
        return this.placed(key, SubnetIds, SecurityGroupIds);
      });
  }

  /** Every ECS service of the stateless stack: its Fargate tasks run in the VPC like the functions. */
  vpcServices(): VpcFunction[] {
    return this.ofType("AWS::ECS::Service").map(([key, properties]) => {
      const { AwsvpcConfiguration } = properties.NetworkConfiguration as Record<
        string,
        Record<string, unknown[]>
      >;
      return this.placed(key, AwsvpcConfiguration?.Subnets, AwsvpcConfiguration?.SecurityGroups);
    });
  }

  private placed(key: ResourceKey, subnetIds: unknown, securityGroupIds: unknown): VpcFunction {
    const subnets = this.refs("stateless", subnetIds);
    const [firstSubnet] = subnets;
    if (firstSubnet === undefined) throw new Error(`${key} is in a VPC but in no subnet`);
    return {
      logicalId: logicalIdOf(key),
      vpc: this.resolve(stackOf(firstSubnet), this.propertiesOf(firstSubnet).VpcId),
      subnets,
      securityGroups: this.refs("stateless", securityGroupIds),
    };
  }

  /**
   * Why `fn` cannot reach `call`'s service from each of its subnets that has no route to it; empty when every
   * subnet has one.
   */
  unreachable(fn: VpcFunction, call: ServiceCall): string[] {
    if (this.interfaceEndpointReaches(fn, call.service)) return [];
    return fn.subnets
      .filter(
        (subnet) => !this.gatewayEndpointServes(fn, subnet, call.service) && !this.natServes(fn, subnet),
      )
      .map(
        (subnet) =>
          `${fn.logicalId} cannot reach ${call.service} (${call.client}) from subnet ${logicalIdOf(subnet)}: ` +
          "no interface endpoint with private DNS that admits its HTTPS, no gateway endpoint in the subnet's " +
          "route table, no NAT route",
      );
  }

  /** An interface endpoint of the service in the function's VPC, resolving the service's own name, reachable on 443. */
  private interfaceEndpointReaches(fn: VpcFunction, service: string): boolean {
    return this.endpointsOf("Interface", fn, service).some(([key, endpoint]) => {
      if (endpoint.PrivateDnsEnabled !== true) return false;
      const endpointPeer: Peer = {
        vpc: fn.vpc,
        subnetCidrs: this.refs(stackOf(key), endpoint.SubnetIds).map((subnet) => this.cidrOf(subnet)),
        securityGroups: this.refs(stackOf(key), endpoint.SecurityGroupIds),
      };
      return (
        this.egressAdmits(fn, endpointPeer) &&
        endpointPeer.securityGroups.some((group) => this.ingressAdmits(group, this.peerOf(fn)))
      );
    });
  }

  /** A gateway endpoint of the service on the subnet's route table, and egress the function may use for it. */
  private gatewayEndpointServes(fn: VpcFunction, subnet: ResourceKey, service: string): boolean {
    const routeTable = this.routeTableOf(subnet);
    return (
      this.egressRules(fn).some(
        (rule) =>
          admitsHttps(rule) && (isAnywhere(rule.CidrIp) || rule.DestinationPrefixListId !== undefined),
      ) &&
      this.endpointsOf("Gateway", fn, service).some(([key, endpoint]) =>
        this.refs(stackOf(key), endpoint.RouteTableIds).includes(routeTable),
      )
    );
  }

  /**
   * A default route through a NAT gateway. A route to an internet gateway does not count: Lambda gives a
   * function's network interfaces no public address, so only a NAT gateway takes its traffic out.
   */
  private natServes(fn: VpcFunction, subnet: ResourceKey): boolean {
    const routeTable = this.routeTableOf(subnet);
    const stack = stackOf(routeTable);
    return (
      this.egressRules(fn).some((rule) => admitsHttps(rule) && isAnywhere(rule.CidrIp)) &&
      this.ofType("AWS::EC2::Route").some(
        ([key, route]) =>
          key.startsWith(`${stack}/`) &&
          this.resolve(stack, route.RouteTableId) === routeTable &&
          route.DestinationCidrBlock === "0.0.0.0/0" &&
          route.NatGatewayId !== undefined,
      )
    );
  }

  private endpointsOf(type: "Interface" | "Gateway", fn: VpcFunction, service: string) {
    return this.ofType("AWS::EC2::VPCEndpoint").filter(
      ([key, endpoint]) =>
        (endpoint.VpcEndpointType ?? "Gateway") === type &&
        serviceNameOf(endpoint.ServiceName) === service &&
        this.resolve(stackOf(key), endpoint.VpcId) === fn.vpc,
    );
  }

  private egressAdmits(fn: VpcFunction, peer: Peer): boolean {
    return this.egressRules(fn).some(
      (rule) =>
        admitsHttps(rule) &&
        (this.cidrAdmits(rule.CidrIp, peer) ||
          peer.securityGroups.includes(this.resolveOptional(rule.DestinationSecurityGroupId) ?? "")),
    );
  }

  private ingressAdmits(group: ResourceKey, peer: Peer): boolean {
    return this.rulesOf(group, "SecurityGroupIngress", "AWS::EC2::SecurityGroupIngress").some(
      (rule) =>
        admitsHttps(rule) &&
        (this.cidrAdmits(rule.CidrIp, peer) ||
          peer.securityGroups.includes(this.resolveOptional(rule.SourceSecurityGroupId) ?? "")),
    );
  }

  /** A CIDR admits a peer that lies inside it: anywhere, its VPC's block, or a literal block holding its subnets. */
  private cidrAdmits(cidr: unknown, peer: Peer): boolean {
    if (cidr === undefined) return false;
    if (isAnywhere(cidr)) return true;
    if (typeof cidr === "string")
      return peer.subnetCidrs.every((subnetCidr) => cidrContains(cidr, subnetCidr));
    const attribute = (cidr as { "Fn::GetAtt"?: [string, string] })["Fn::GetAtt"];
    return attribute?.[1] === "CidrBlock" && this.resolveOptional(cidr) === peer.vpc;
  }

  private egressRules(fn: VpcFunction): SecurityGroupRule[] {
    return fn.securityGroups.flatMap((group) =>
      this.rulesOf(group, "SecurityGroupEgress", "AWS::EC2::SecurityGroupEgress"),
    );
  }

  /** A security group's rules: those written in it, and those added by resources of their own in either stack. */
  private rulesOf(
    group: ResourceKey,
    inline: "SecurityGroupIngress" | "SecurityGroupEgress",
    standaloneType: string,
  ): SecurityGroupRule[] {
    const written = (this.propertiesOf(group)[inline] ?? []) as SecurityGroupRule[];
    const added = this.ofType(standaloneType)
      .filter(([key, rule]) => this.resolve(stackOf(key), rule.GroupId) === group)
      .map(([, rule]) => rule as unknown as SecurityGroupRule);
    return [...written, ...added];
  }

  private peerOf(fn: VpcFunction): Peer {
    return {
      vpc: fn.vpc,
      subnetCidrs: fn.subnets.map((subnet) => this.cidrOf(subnet)),
      securityGroups: fn.securityGroups,
    };
  }

  private routeTableOf(subnet: ResourceKey): ResourceKey {
    const stack = stackOf(subnet);
    const association = this.ofType("AWS::EC2::SubnetRouteTableAssociation").find(
      ([key, properties]) =>
        key.startsWith(`${stack}/`) && this.resolve(stack, properties.SubnetId) === subnet,
    );
    if (association === undefined) throw new Error(`no route table for subnet ${subnet}`);
    return this.resolve(stack, association[1].RouteTableId);
  }

  private cidrOf(subnet: ResourceKey): string {
    const cidr = this.propertiesOf(subnet).CidrBlock;
    if (typeof cidr !== "string") throw new Error(`subnet ${subnet} has no literal CIDR block`);
    return cidr;
  }

  private ofType(type: string): [ResourceKey, Properties][] {
    return [...this.resources.entries()]
      .filter(([, resource]) => resource.Type === type)
      .map(([key, resource]) => [key, resource.Properties ?? {}]);
  }

  private propertiesOf(key: ResourceKey): Properties {
    const resource = this.resources.get(key);
    if (resource === undefined) throw new Error(`no resource ${key}`);
    return resource.Properties ?? {};
  }

  private refs(stack: Stack, values: unknown): ResourceKey[] {
    return ((values ?? []) as unknown[]).map((value) => this.resolve(stack, value));
  }

  private resolve(stack: Stack, value: unknown): ResourceKey {
    const resolved = this.resolveIn(stack, value);
    if (resolved === undefined)
      throw new Error(`cannot resolve ${JSON.stringify(value)} in the ${stack} stack`);
    return resolved;
  }

  /** A reference the templates can resolve, from either stack (CIDRs and group ids of rules may be literals). */
  private resolveOptional(value: unknown): ResourceKey | undefined {
    return this.resolveIn("stateless", value) ?? this.resolveIn("stateful", value);
  }

  /** The resource a Ref, a GetAtt or an ImportValue (of an export of either stack) points at. */
  private resolveIn(stack: Stack, value: unknown): ResourceKey | undefined {
    if (typeof value !== "object" || value === null) return undefined;
    const reference = value as { Ref?: string; "Fn::GetAtt"?: [string, string]; "Fn::ImportValue"?: unknown };
    const logicalId = reference.Ref ?? reference["Fn::GetAtt"]?.[0];
    if (logicalId !== undefined)
      return this.resources.has(keyOf(stack, logicalId)) ? keyOf(stack, logicalId) : undefined;
    if (reference["Fn::ImportValue"] === undefined) return undefined;
    for (const exporter of ["stateful", "stateless"] as const) {
      const output = Object.values(this.templates[exporter].Outputs ?? {}).find(
        (candidate) => candidate.Export?.Name === reference["Fn::ImportValue"],
      );
      if (output !== undefined) return this.resolveIn(exporter, output.Value);
    }
    return undefined;
  }
}

/** `com.amazonaws.<region>.<service>` as CDK writes it, `{ "Fn::Join": ["", [..., { Ref: "AWS::Region" }, ...]] }`. */
function serviceNameOf(serviceName: unknown): string | undefined {
  const parts = (serviceName as { "Fn::Join"?: [string, unknown[]] })["Fn::Join"]?.[1];
  const joined =
    parts?.map((part) => (typeof part === "string" ? part : "<region>")).join("") ?? String(serviceName);
  return /^com\.amazonaws\.[^.]+\.(.+)$/.exec(joined)?.[1];
}

const isAnywhere = (cidr: unknown): boolean => cidr === "0.0.0.0/0";

function admitsHttps(rule: SecurityGroupRule): boolean {
  if (rule.IpProtocol === "-1") return true;
  return (
    (rule.IpProtocol === "tcp" || rule.IpProtocol === "6") &&
    (rule.FromPort ?? 0) <= HTTPS &&
    HTTPS <= (rule.ToPort ?? 65_535)
  );
}

function cidrContains(outer: string, inner: string): boolean {
  const [outerBase, outerBits] = parseCidr(outer);
  const [innerBase, innerBits] = parseCidr(inner);
  if (innerBits < outerBits) return false;
  const mask = outerBits === 0 ? 0 : (~0 << (32 - outerBits)) >>> 0;
  return (outerBase & mask) >>> 0 === (innerBase & mask) >>> 0;
}

function parseCidr(cidr: string): [number, number] {
  const [address = "", bits = "32"] = cidr.split("/");
  const base = address.split(".").reduce((value, octet) => ((value << 8) | Number(octet)) >>> 0, 0);
  return [base, Number(bits)];
}

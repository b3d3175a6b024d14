import { describe, expect, it } from "vitest";
import { bundleDirectoryOf, imageDirectoryOf, type SynthesizedBeacon, synthesized } from "./assembly.js";
import {
  BeaconNetwork,
  type BeaconTemplates,
  type CfnTemplate,
  fargateTaskCalls,
  type ServiceCall,
  serviceCallsInBundle,
} from "./service-routes.js";
import { type BeaconVariant, beaconVariantNames, beaconVariants } from "./variants.js";

const templatesOf = (beacon: SynthesizedBeacon): BeaconTemplates => ({
  stateful: beacon.stateful.template as CfnTemplate,
  stateless: beacon.stateless.template as CfnTemplate,
});

/**
 * The AWS services each VPC function's bundle calls, and each ECS service's (its image's bundle, and what ECS
 * calls for its tasks), by logical id.
 */
function serviceCallsOf(beacon: SynthesizedBeacon): Map<string, ServiceCall[]> {
  const network = new BeaconNetwork(templatesOf(beacon));
  const calls = new Map<string, ServiceCall[]>();
  for (const { logicalId } of network.vpcFunctions())
    calls.set(logicalId, serviceCallsInBundle(bundleDirectoryOf(beacon, logicalId)));
  for (const { logicalId } of network.vpcServices())
    calls.set(logicalId, [
      ...serviceCallsInBundle(imageDirectoryOf(beacon, logicalId), "main.mjs.map"),
      ...fargateTaskCalls,
    ]);
  return calls;
}

/** Every function or ECS service, AWS service and subnet with no route between them. */
function unreachableIn(templates: BeaconTemplates, calls: Map<string, ServiceCall[]>): string[] {
  const network = new BeaconNetwork(templates);
  return [...network.vpcFunctions(), ...network.vpcServices()].flatMap((fn) => {
    const fnCalls = calls.get(fn.logicalId);
    if (fnCalls === undefined) throw new Error(`no bundle read for ${fn.logicalId}`);
    return fnCalls.flatMap((call) => network.unreachable(fn, call));
  });
}

/** "ConsoleApiFunction0489917F" → "ConsoleApi", and an ECS service's "AgentService5DA2C6A0" → "AgentService" */
const functionIdOf = (logicalId: string) => logicalId.replace(/(Function)?[0-9A-F]{8}$/, "");

/** The functions and ECS services a variant runs in its VPC. */
function vpcWorkloadsOf(variant: BeaconVariant): string[] {
  const context: Record<string, string> = beaconVariants[variant].context;
  const agentApi = context.agentCompute === "fargate" ? ["AgentService"] : ["AgentApi"];
  const debugBundles =
    context.agentIngress === "alb" && context.agentCompute !== "fargate" ? ["DebugBundleService"] : [];
  // Behind API Gateway (the default ingress), assets stream to agents from a function of their own.
  const assetStream = (context.agentIngress ?? "api") === "api" ? ["AgentAssetStream"] : [];
  return [...agentApi, ...assetStream, "ConsoleApi", ...debugBundles, "Sweeper"].sort();
}

describe.each(beaconVariantNames.map((variant) => [beaconVariants[variant].description, variant] as const))(
  "%s",
  (_, variant) => {
    it("gives every function in the VPC a route to every AWS service its bundle calls", () => {
      const beacon = synthesized(variant);
      const calls = serviceCallsOf(beacon);
      expect([...calls.keys()].map(functionIdOf).sort()).toEqual(vpcWorkloadsOf(variant));
      expect(unreachableIn(templatesOf(beacon), calls)).toEqual([]);
    });
  },
);

describe("the services a function calls, read from its bundle", () => {
  it("are the table and the stream for the APIs and the sweeper, the assets' bucket for them too (the sweeper reads adoptions' debug bundles), Secrets Manager and Parameter Store for the agent API and its asset stream, the same agent app (parameters' secrets), and the agent CA's secret and Lambda (the webhook dispatcher) for the console", () => {
    const services = Object.fromEntries(
      [...serviceCallsOf(synthesized("dev"))].map(([logicalId, calls]) => [
        functionIdOf(logicalId),
        calls.map(({ service }) => service),
      ]),
    );
    expect(services).toEqual({
      AgentApi: ["dynamodb", "kinesis-streams", "s3", "secretsmanager", "ssm"],
      AgentAssetStream: ["dynamodb", "kinesis-streams", "s3", "secretsmanager", "ssm"],
      ConsoleApi: ["dynamodb", "kinesis-streams", "lambda", "s3", "secretsmanager"],
      Sweeper: ["dynamodb", "kinesis-streams", "s3"],
    });
  });
});

describe("the functions that post to tenants' receivers", () => {
  it.each(beaconVariantNames)(
    "run outside the VPC in %s, which has no NAT gateway: the stream consumer's first attempts and the dispatcher's retries",
    (variant) => {
      const { stateless } = templatesOf(synthesized(variant));
      const placements = Object.entries(stateless.Resources)
        .filter(([, resource]) => resource.Type === "AWS::Lambda::Function")
        .map(([logicalId, resource]) => [functionIdOf(logicalId), resource.Properties?.VpcConfig] as const)
        .filter(([id]) => id === "StreamConsumer" || id === "WebhookDispatcher");
      expect(placements).toEqual([
        ["StreamConsumer", undefined],
        ["WebhookDispatcher", undefined],
      ]);
    },
  );
});

describe("the route check", () => {
  const dev = () => synthesized("dev");

  /** The dev variant's templates, the stateful one changed by `change` (a copy: the assembly is shared). */
  function devWith(change: (resources: CfnTemplate["Resources"]) => void): BeaconTemplates {
    const templates = structuredClone(templatesOf(dev()));
    change(templates.stateful.Resources);
    return templates;
  }

  const logicalIdsWhere = (resources: CfnTemplate["Resources"], pattern: RegExp) =>
    Object.keys(resources).filter((logicalId) => pattern.test(logicalId));

  const withoutSecretsManagerEndpoint = (resources: CfnTemplate["Resources"]) => {
    const [endpoint] = logicalIdsWhere(resources, /^VpcSecretsManager[0-9A-F]{8}$/);
    expect(endpoint).toBeDefined();
    delete resources[endpoint as string];
  };

  it("names the function, service and subnets a missing interface endpoint leaves without a route", () => {
    const findings = unreachableIn(devWith(withoutSecretsManagerEndpoint), serviceCallsOf(dev()));
    expect(findings).toEqual(
      ["AgentApi", "AgentAssetStream", "ConsoleApi"].flatMap((id) => [
        expect.stringMatching(
          new RegExp(
            `^${id}Function\\w+ cannot reach secretsmanager \\(@aws-sdk/client-secrets-manager\\) from subnet VpcPrivateSubnet1Subnet\\w+: `,
          ),
        ),
        expect.stringMatching(
          new RegExp(`^${id}Function\\w+ cannot reach secretsmanager .* subnet VpcPrivateSubnet2Subnet`),
        ),
      ]),
    );
  });

  it("counts no endpoint whose security group refuses the functions' HTTPS", () => {
    const findings = unreachableIn(
      devWith((resources) => {
        const [group = ""] = logicalIdsWhere(resources, /^VpcKinesisSecurityGroup/);
        const ingress = resources[group]?.Properties?.SecurityGroupIngress as { FromPort: number }[];
        for (const rule of ingress) Object.assign(rule, { FromPort: 80, ToPort: 80 });
      }),
      serviceCallsOf(dev()),
    );
    expect(findings.map((finding) => finding.split(" from ")[0])).toEqual(
      ["AgentApi", "AgentAssetStream", "ConsoleApi", "Sweeper"]
        .flatMap((id) => [id, id])
        .map((id) => expect.stringMatching(new RegExp(`^${id}Function\\w+ cannot reach kinesis-streams `))),
    );
  });

  it("counts a gateway endpoint only on the route tables it is attached to", () => {
    const findings = unreachableIn(
      devWith((resources) => {
        const [endpoint = ""] = logicalIdsWhere(resources, /^VpcDynamoDb/);
        const properties = resources[endpoint]?.Properties as { RouteTableIds: { Ref: string }[] };
        properties.RouteTableIds = properties.RouteTableIds.filter(
          ({ Ref }) => !Ref.startsWith("VpcPrivateSubnet2"),
        );
      }),
      serviceCallsOf(dev()),
    );
    // One per VPC function that calls DynamoDB: the agent API, its asset stream, the console and the sweeper.
    expect(findings).toHaveLength(4);
    for (const finding of findings)
      expect(finding).toMatch(/ cannot reach dynamodb .* subnet VpcPrivateSubnet2Subnet/);
  });

  it("counts a default route through a NAT gateway, but not one through an internet gateway", () => {
    const withDefaultRoute = (target: Record<string, unknown>) =>
      devWith((resources) => {
        withoutSecretsManagerEndpoint(resources);
        for (const routeTable of logicalIdsWhere(resources, /^VpcPrivateSubnet\dRouteTable[0-9A-F]{8}$/))
          resources[`${routeTable}Default`] = {
            Type: "AWS::EC2::Route",
            Properties: { RouteTableId: { Ref: routeTable }, DestinationCidrBlock: "0.0.0.0/0", ...target },
          };
      });
    const calls = serviceCallsOf(dev());
    expect(unreachableIn(withDefaultRoute({ NatGatewayId: "nat-0123456789abcdef0" }), calls)).toEqual([]);
    expect(unreachableIn(withDefaultRoute({ GatewayId: "igw-0123456789abcdef0" }), calls)).toHaveLength(6);
  });
});

/**
 * The variants of Beacon the infra tests look at: context values on top of cdk.json's, as `cdk synth -c` gives
 * them. The global setup synthesizes each once; tests load them by name.
 */
export const beaconVariants = {
  dev: {
    description: "dev behind API Gateway",
    context: { stage: "dev" },
  },
  prod: {
    description: "prod behind API Gateway, the web console on a domain of its own",
    context: {
      stage: "prod",
      consoleDomainName: "console.beacon.example.com",
      consoleCertificateArn:
        "arn:aws:acm:us-east-1:123456789012:certificate/11111111-1111-1111-1111-111111111111",
    },
  },
  prodAlb: {
    description: "prod behind a load balancer on 443 and 10090, provisioned stream, tracing on",
    context: {
      stage: "prod",
      agentIngress: "alb",
      agentPorts: "443,10090",
      streamShards: "4",
      tracing: "true",
    },
  },
  prodFargate: {
    description: "prod behind a load balancer, the agent API on ECS Fargate (the agent service)",
    context: { stage: "prod", agentIngress: "alb", agentCompute: "fargate", agentServiceMaxTasks: "40" },
  },
  prodNlb: {
    description:
      "prod behind a Network Load Balancer on 443 and 10090, the agent service terminating mutual TLS itself",
    context: {
      stage: "prod",
      agentIngress: "nlb",
      agentCompute: "fargate",
      agentPorts: "443,10090",
      agentServerCertificateSecretArn:
        "arn:aws:secretsmanager:eu-west-1:123456789012:secret:beacon-agent-server-AbCdEf",
    },
  },
  devExternalIdentity: {
    description:
      "dev trusting an external OpenID Connect issuer, with the agent CA's secret given and a tenant's own CA",
    context: {
      stage: "dev",
      agentTenantCas: "infra/fixtures/example-tenant-cas.json",
      consoleIssuer: "https://login.example.org/",
      consoleAudience: "beacon-console,beacon-cli",
      consoleAuthorizationEndpoint: "https://login.example.org/oauth/v2/authorize",
      consoleTokenEndpoint: "https://login.example.org/oauth/v2/token",
      consoleLogoutUrl: "https://login.example.org/oidc/v1/end_session",
      agentCaSecretArn: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:beacon-agent-ca-AbCdEf",
      agentDomainName: "agents.example.org",
    },
  },
} as const satisfies Record<string, { description: string; context: Record<string, string> }>;

export type BeaconVariant = keyof typeof beaconVariants;

export const beaconVariantNames = Object.keys(beaconVariants) as BeaconVariant[];

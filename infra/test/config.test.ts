import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RemovalPolicy } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import { createCertificateAuthority } from "../../functions/adapters/x509/issuer.js";
import { readConfig } from "../lib/config.js";
import { repositoryRoot } from "../lib/paths.js";

const exampleDomain = {
  agentDomainName: "c2.beacon.example.com",
  agentCertificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/example",
  agentCaBundle: `${repositoryRoot}/infra/fixtures/example-agent-ca.pem`,
};

const externalIssuer = {
  consoleIssuer: "https://login.example.org/",
  consoleAudience: "a,b",
  consoleAuthorizationEndpoint: "https://login.example.org/authorize",
  consoleTokenEndpoint: "https://login.example.org/token",
};

const serverCertificate = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:beacon-agent-server-AbCdEf";

function configFrom(context: Record<string, unknown>) {
  return readConfig({ tryGetContext: (key: string) => context[key] });
}

describe("stage configuration from context", () => {
  it("keeps dev disposable and prod retained", () => {
    const dev = configFrom({ ...exampleDomain, stage: "dev" });
    const prod = configFrom({ ...exampleDomain, stage: "prod" });
    expect(dev.settings.removalPolicy).toBe(RemovalPolicy.DESTROY);
    expect(prod.settings.removalPolicy).toBe(RemovalPolicy.RETAIN);
    expect(prod.settings.logRetention).toBeGreaterThan(dev.settings.logRetention);
  });

  it("defaults to the API Gateway ingress, an on-demand stream, no tracing and the stage's log level", () => {
    const config = configFrom({ ...exampleDomain, stage: "prod" });
    expect(config).toMatchObject({
      agentIngress: "api",
      agentCompute: "lambda",
      agentServiceTasks: { min: 2, max: 20 },
      agentPorts: [443],
      streamShardCount: undefined,
      tracing: false,
      logLevel: "WARN",
    });
    expect(config.agentDomain.trust.bundlePem).toContain("BEGIN CERTIFICATE");
    expect(config.account).toBeUndefined();
    expect(config.region).toBeUndefined();
  });

  it("prices usage as the agent API runs, with the operator's unit prices over the model's", () => {
    const prod = { ...exampleDomain, stage: "prod" };
    expect(configFrom(prod).usagePricing).toMatchObject({ option: "httpApiLambda", overridden: [] });
    expect(configFrom({ ...prod, agentIngress: "alb" }).usagePricing.option).toBe("albLambda");
    const fargate = configFrom({
      ...prod,
      agentIngress: "alb",
      agentCompute: "fargate",
      usageUnitPrices: '{"heartbeats": 0.00001}',
    }).usagePricing;
    expect(fargate).toMatchObject({ option: "albFargate", overridden: ["heartbeats"] });
    expect(fargate.prices.heartbeats).toBe(0.00001);
    expect(
      configFrom({ ...prod, usageUnitPrices: { agentHours: 0.001 } }).usagePricing.prices.agentHours,
    ).toBe(0.001);
    expect(() => configFrom({ ...prod, usageUnitPrices: '{"acks": 1}' })).toThrow(/unknown unit acks/);
  });

  it("keeps DESCRIBE answers 7 days unless operationResultDays says otherwise", () => {
    expect(configFrom({ ...exampleDomain, stage: "prod" }).operationResultDays).toBe(7);
    expect(
      configFrom({ ...exampleDomain, stage: "prod", operationResultDays: "2" }).operationResultDays,
    ).toBe(2);
    expect(() => configFrom({ ...exampleDomain, stage: "prod", operationResultDays: "0" })).toThrow(
      /operationResultDays/,
    );
  });

  it("keeps debug bundles a day unless debugBundleDays says otherwise", () => {
    expect(configFrom({ ...exampleDomain, stage: "prod" }).debugBundleDays).toBe(1);
    expect(configFrom({ ...exampleDomain, stage: "prod", debugBundleDays: "3" }).debugBundleDays).toBe(3);
    expect(() => configFrom({ ...exampleDomain, stage: "prod", debugBundleDays: "0" })).toThrow(
      /debugBundleDays/,
    );
  });

  it("keeps archived events 400 days unless eventArchiveDays says otherwise", () => {
    expect(configFrom({ ...exampleDomain, stage: "prod" }).eventArchiveDays).toBe(400);
    expect(configFrom({ ...exampleDomain, stage: "prod", eventArchiveDays: "90" }).eventArchiveDays).toBe(90);
    expect(() => configFrom({ ...exampleDomain, stage: "prod", eventArchiveDays: "0" })).toThrow(
      /eventArchiveDays/,
    );
  });

  it("reads -c values, which arrive as strings", () => {
    const config = configFrom({
      ...exampleDomain,
      stage: "dev",
      agentIngress: "alb",
      streamShards: "4",
      tracing: "true",
      logLevel: "INFO",
      region: "eu-west-1",
    });
    expect(config).toMatchObject({
      agentIngress: "alb",
      streamShardCount: 4,
      tracing: true,
      logLevel: "INFO",
      region: "eu-west-1",
    });
  });

  it("trusts the stack's user pool unless an external issuer, its audiences and endpoints are given", () => {
    expect(configFrom({ ...exampleDomain, stage: "dev" }).consoleIdentity).toEqual({ kind: "userPool" });
    expect(configFrom({ ...exampleDomain, ...externalIssuer, stage: "dev" }).consoleIdentity).toEqual({
      kind: "oidc",
      issuer: "https://login.example.org/",
      audiences: ["a", "b"],
      webClient: {
        authorizationEndpoint: "https://login.example.org/authorize",
        tokenEndpoint: "https://login.example.org/token",
        clientId: "a",
        logoutUrl: undefined,
      },
    });
    const chosen = configFrom({
      ...exampleDomain,
      ...externalIssuer,
      stage: "dev",
      consoleClientId: "b",
      consoleLogoutUrl: "https://login.example.org/logout",
    }).consoleIdentity;
    expect(chosen).toMatchObject({
      webClient: { clientId: "b", logoutUrl: "https://login.example.org/logout" },
    });
  });

  it("serves the web console on the distribution's name unless a domain and its certificate are given", () => {
    expect(configFrom({ ...exampleDomain, stage: "dev" }).consoleDomain).toBeUndefined();
    const consoleDomain = {
      domainName: "console.example.org",
      certificateArn: "arn:aws:acm:us-east-1:1:certificate/c",
    };
    expect(
      configFrom({
        ...exampleDomain,
        stage: "dev",
        consoleDomainName: consoleDomain.domainName,
        consoleCertificateArn: consoleDomain.certificateArn,
      }).consoleDomain,
    ).toEqual(consoleDomain);
  });

  it("runs the agent API on Fargate behind the load balancer when asked, with the tasks given", () => {
    const config = configFrom({
      ...exampleDomain,
      stage: "prod",
      agentIngress: "alb",
      agentCompute: "fargate",
      agentServiceMinTasks: "3",
      agentServiceMaxTasks: "60",
    });
    expect(config).toMatchObject({
      agentIngress: "alb",
      agentCompute: "fargate",
      agentServiceTasks: { min: 3, max: 60 },
    });
  });

  it("runs the agent service behind a Network Load Balancer with the server certificate's secret, priced as on the ALB", () => {
    const config = configFrom({
      ...exampleDomain,
      stage: "prod",
      agentIngress: "nlb",
      agentCompute: "fargate",
      agentServerCertificateSecretArn: serverCertificate,
      // An NLB is not held to the ALB's two listeners with mutual TLS.
      agentPorts: "443,8443,10090",
    });
    expect(config).toMatchObject({
      agentIngress: "nlb",
      agentCompute: "fargate",
      agentServerCertificateSecretArn: serverCertificate,
      agentPorts: [443, 8443, 10090],
    });
    expect(config.usagePricing.option).toBe("nlbFargate");
  });

  it("has the load balancer listen on the ports a fleet's agents carry in their URLs", () => {
    expect(
      configFrom({ ...exampleDomain, stage: "prod", agentIngress: "alb", agentPorts: "443, 10090" })
        .agentPorts,
    ).toEqual([443, 10090]);
    expect(
      configFrom({ ...exampleDomain, stage: "prod", agentIngress: "alb", agentPorts: "10090" }).agentPorts,
    ).toEqual([10090]);
    expect(configFrom({ ...exampleDomain, stage: "prod", agentPorts: "443" }).agentPorts).toEqual([443]);
  });

  it.each([
    [{ stage: "staging" }, /"stage" must be one of dev, prod/],
    [
      { stage: "dev", agentPorts: "10090" },
      /HTTP API's custom domain serves 443 alone: add -c agentIngress=alb/,
    ],
    [{ stage: "dev", agentIngress: "alb", agentPorts: "443,https" }, /"agentPorts" must be TCP ports/],
    [{ stage: "dev", agentIngress: "alb", agentPorts: "70000" }, /"agentPorts" must be TCP ports/],
    [{ stage: "dev", agentIngress: "alb", agentPorts: "443,443" }, /"agentPorts" names a port twice/],
    [
      { stage: "dev", agentIngress: "alb", agentPorts: "443,8443,10090" },
      /names 3 ports; a load balancer verifies client certificates on 2 listeners at most/,
    ],
    [
      { stage: "dev", agentIngress: "alb", agentPorts: "443,10080" },
      /names 10080, a port agents speak plain HTTP to/,
    ],
    [{ stage: "dev", agentIngress: "gwlb" }, /"agentIngress" must be one of api, alb, nlb/],
    [
      { stage: "dev", agentIngress: "nlb", agentServerCertificateSecretArn: serverCertificate },
      /"agentIngress" is "nlb", which passes TCP through to the agent service .*: add -c agentCompute=fargate \(it is "lambda"\)/,
    ],
    [
      { stage: "dev", agentIngress: "nlb", agentCompute: "fargate" },
      /"agentServerCertificateSecretArn" is required with agentIngress=nlb/,
    ],
    [
      { stage: "dev", agentIngress: "alb", agentServerCertificateSecretArn: serverCertificate },
      /"agentServerCertificateSecretArn" is read with agentIngress=nlb alone \(it is "alb"\)/,
    ],
    [{ stage: "dev", agentCompute: "ec2" }, /"agentCompute" must be one of lambda, fargate/],
    [
      { stage: "dev", agentCompute: "fargate" },
      /"agentCompute" is "fargate", which runs behind the load balancer: add -c agentIngress=alb or nlb \(it is "api"\)/,
    ],
    [
      { stage: "dev", agentIngress: "alb", agentCompute: "fargate", agentServiceMinTasks: "30" },
      /"agentServiceMinTasks" \(30\) must not be above "agentServiceMaxTasks" \(20\)/,
    ],
    [{ stage: "dev", agentServiceMaxTasks: "0" }, /"agentServiceMaxTasks" must be a positive integer/],
    [{ stage: "dev", streamShards: "0" }, /"streamShards" must be a positive integer/],
    [{ stage: "dev", logLevel: "TRACE" }, /"logLevel" must be one of/],
    [{ stage: "dev", agentDomainName: "" }, /"agentDomainName" is required/],
    [
      { stage: "dev", consoleIssuer: "https://login.example.org/", consoleAudience: "a" },
      /"consoleIssuer", "consoleAudience", "consoleAuthorizationEndpoint", "consoleTokenEndpoint" go together/,
    ],
    [
      { stage: "dev", ...externalIssuer, consoleClientId: "c" },
      /"consoleClientId" must be one of the audiences/,
    ],
    [
      { stage: "dev", ...externalIssuer, consoleTokenEndpoint: "http://login.example.org/token" },
      /"consoleTokenEndpoint" must be an https:\/\/ URL/,
    ],
    [{ stage: "dev", consoleDomainName: "console.example.org" }, /"consoleCertificateArn" go together/],
  ])("refuses %j", (context, message) => {
    expect(() => configFrom({ ...exampleDomain, ...context })).toThrow(message);
  });
});

describe("tenants' own CAs from agentTenantCas", () => {
  /** An agentTenantCas file in a folder of its own, beside the PEM files of `cas` (by file name). */
  function tenantCasFile(registrations: unknown, cas: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), "beacon-tenant-cas-"));
    for (const [file, pem] of Object.entries(cas)) writeFileSync(join(dir, file), pem);
    writeFileSync(join(dir, "tenant-cas.json"), JSON.stringify(registrations));
    return join(dir, "tenant-cas.json");
  }
  const bindingsOf = (agentTenantCas: string) =>
    configFrom({ ...exampleDomain, stage: "prod", agentTenantCas }).agentDomain.trust.bindings;

  it("binds several CAs a tenant, each by its rule, and the old form by Beacon's rule", async () => {
    const [plantA, plantB, legacy] = await Promise.all(
      ["Plant A CA", "Plant B CA", "Globex CA"].map((name) => createCertificateAuthority(name)),
    );
    const file = tenantCasFile(
      {
        acme: [
          { ca: "plant-a.pem", agentId: "CN" },
          { ca: "plant-b.pem", agentId: "SAN:DNS" },
        ],
        globex: "globex.pem",
      },
      {
        "plant-a.pem": plantA?.certPem ?? "",
        "plant-b.pem": plantB?.certPem ?? "",
        "globex.pem": legacy?.certPem ?? "",
      },
    );
    const bindings = bindingsOf(file);
    expect(bindings["CN=Plant A CA,O=Beacon"]).toEqual([{ tenant: "acme", agentId: "CN" }]);
    expect(bindings["CN=Plant B CA,O=Beacon"]).toEqual([{ tenant: "acme", agentId: "SAN:DNS" }]);
    expect(bindings["CN=Globex CA,O=Beacon"]).toEqual(["globex"]);
    const trusted = configFrom({ ...exampleDomain, stage: "prod", agentTenantCas: file }).agentDomain.trust;
    for (const ca of [plantA, plantB, legacy])
      expect(trusted.bundlePem).toContain(ca?.certPem.trim().split("\n")[1]);
  });

  it("gives two tenants' look-alike CA names bindings that carry each CA's key", async () => {
    const [acme, globex] = await Promise.all([
      createCertificateAuthority("Edge CA"),
      createCertificateAuthority("Edge CA"),
    ]);
    const file = tenantCasFile(
      { acme: [{ ca: "acme.pem", agentId: "CN" }], globex: [{ ca: "globex.pem", agentId: "*" }] },
      { "acme.pem": acme?.certPem ?? "", "globex.pem": globex?.certPem ?? "" },
    );
    expect(bindingsOf(file)["CN=Edge CA,O=Beacon"]).toEqual([
      { tenant: "acme", agentId: "CN", publicKey: expect.any(String) },
      { tenant: "globex", agentId: "*", publicKey: expect.any(String) },
    ]);
  });

  it("refuses one CA for two tenants, and a rule it cannot read", async () => {
    const shared = await createCertificateAuthority("Shared CA");
    const twoTenants = tenantCasFile(
      { acme: "shared.pem", globex: [{ ca: "shared.pem", agentId: "*" }] },
      { "shared.pem": shared.certPem },
    );
    expect(() => bindingsOf(twoTenants)).toThrow("a CA speaks for one tenant");
    const badRule = tenantCasFile(
      { acme: [{ ca: "shared.pem", agentId: "SAN:IP" }] },
      { "shared.pem": shared.certPem },
    );
    expect(() => bindingsOf(badRule)).toThrow("agentId");
  });
});

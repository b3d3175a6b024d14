import { RemovalPolicy } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import { readConfig } from "../lib/config.js";
import { repositoryRoot } from "../lib/paths.js";

const exampleDomain = {
  agentDomainName: "c2.beacon.example.com",
  agentCertificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/example",
  agentCaBundle: `${repositoryRoot}/infra/fixtures/example-agent-ca.pem`,
};

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
      streamShardCount: undefined,
      tracing: false,
      logLevel: "WARN",
    });
    expect(config.agentDomain.trust.bundlePem).toContain("BEGIN CERTIFICATE");
    expect(config.account).toBeUndefined();
    expect(config.region).toBeUndefined();
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

  it("trusts the stack's user pool unless an external issuer and its audiences are given", () => {
    expect(configFrom({ ...exampleDomain, stage: "dev" }).consoleIdentity).toEqual({ kind: "userPool" });
    expect(
      configFrom({
        ...exampleDomain,
        stage: "dev",
        consoleIssuer: "https://login.example.org/",
        consoleAudience: "a,b",
      }).consoleIdentity,
    ).toEqual({ kind: "oidc", issuer: "https://login.example.org/", audiences: ["a", "b"] });
  });

  it.each([
    [{ stage: "staging" }, /"stage" must be one of dev, prod/],
    [{ stage: "dev", agentIngress: "nlb" }, /"agentIngress" must be one of api, alb/],
    [{ stage: "dev", streamShards: "0" }, /"streamShards" must be a positive integer/],
    [{ stage: "dev", logLevel: "TRACE" }, /"logLevel" must be one of/],
    [{ stage: "dev", agentDomainName: "" }, /"agentDomainName" is required/],
    [
      { stage: "dev", consoleIssuer: "https://login.example.org/" },
      /"consoleIssuer" and "consoleAudience" go together/,
    ],
  ])("refuses %j", (context, message) => {
    expect(() => configFrom({ ...exampleDomain, ...context })).toThrow(message);
  });
});

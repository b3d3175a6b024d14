import { describe, expect, it } from "vitest";
import { agentApiEnv } from "../../scripts/test-support/agent-api-env.js";
import { agentApiConfig } from "../shared/config.js";
import { EnvNames } from "../shared/env-names.js";
import { agentServiceConfig } from "./config.js";

const env = agentApiEnv;

describe("agentServiceConfig", () => {
  it("listens on 8080 unless set and holds no more of a body than the agent API takes", () => {
    expect(agentServiceConfig(env)).toEqual({
      port: 8080,
      maxBodyBytes: agentApiConfig(env).maxInflatedBytes,
    });
    expect(
      agentServiceConfig({
        ...env,
        [EnvNames.agentServicePort]: "9090",
        [EnvNames.maxInflatedBytes]: "1024",
      }),
    ).toEqual({ port: 9090, maxBodyBytes: 1024 });
  });

  it("terminates mutual TLS with a certificate, its key and the CA bundle, the health check on its own port", () => {
    const tls = {
      [EnvNames.agentServiceTlsCertificate]: "-----BEGIN CERTIFICATE-----server",
      [EnvNames.agentServiceTlsKey]: "-----BEGIN PRIVATE KEY-----key",
      [EnvNames.agentServiceCaBundle]: "-----BEGIN CERTIFICATE-----ca",
    };
    expect(agentServiceConfig({ ...env, ...tls }).tls).toEqual({
      certificatePem: "-----BEGIN CERTIFICATE-----server",
      keyPem: "-----BEGIN PRIVATE KEY-----key",
      caBundlePem: "-----BEGIN CERTIFICATE-----ca",
      healthPort: 8081,
    });
    expect(
      agentServiceConfig({ ...env, ...tls, [EnvNames.agentServiceHealthPort]: "9091" }).tls?.healthPort,
    ).toBe(9091);
    expect(agentServiceConfig(env).tls).toBeUndefined();
  });

  it("refuses half a TLS configuration, which would serve plain HTTP where mutual TLS was meant", () => {
    expect(() =>
      agentServiceConfig({ ...env, [EnvNames.agentServiceTlsCertificate]: "-----BEGIN CERTIFICATE-----" }),
    ).toThrow(/together; only BEACON_AGENT_SERVICE_TLS_CERTIFICATE set/);
    expect(() =>
      agentServiceConfig({
        ...env,
        [EnvNames.agentServiceTlsKey]: "key",
        [EnvNames.agentServiceCaBundle]: "ca",
      }),
    ).toThrow(EnvNames.agentServiceTlsCertificate);
  });

  it("refuses a health port that is the TLS port", () => {
    expect(() =>
      agentServiceConfig({
        ...env,
        [EnvNames.agentServiceTlsCertificate]: "cert",
        [EnvNames.agentServiceTlsKey]: "key",
        [EnvNames.agentServiceCaBundle]: "ca",
        [EnvNames.agentServicePort]: "8443",
        [EnvNames.agentServiceHealthPort]: "8443",
      }),
    ).toThrow(/must differ/);
  });

  it("fails where the agent API would: its environment is the agent API's", () => {
    expect(() => agentServiceConfig({ ...env, [EnvNames.tableName]: "" })).toThrow(EnvNames.tableName);
  });
});

import { describe, expect, it } from "vitest";
import { agentApiEnv } from "../../scripts/test-support/agent-api-env.js";
import {
  agentApiConfig,
  consoleApiConfig,
  historyConsumerConfig,
  streamConsumerConfig,
  sweeperConfig,
  webhookConfig,
  webhookDeliveryConfig,
} from "./config.js";
import { EnvNames } from "./env-names.js";

const env = agentApiEnv;

describe("consoleApiConfig's audit retention", () => {
  const consoleEnv = {
    ...env,
    [EnvNames.agentCaDir]: "/tmp/ca",
    [EnvNames.webhookTesterFunction]: "beacon-webhook-dispatcher",
  };

  it("keeps audit records 400 days unless set", () => {
    expect(consoleApiConfig(consoleEnv).auditRetentionDays).toBe(400);
    expect(
      consoleApiConfig({ ...consoleEnv, [EnvNames.auditRetentionDays]: "2555" }).auditRetentionDays,
    ).toBe(2555);
  });

  it("refuses a retention that is not a positive number", () => {
    expect(() => consoleApiConfig({ ...consoleEnv, [EnvNames.auditRetentionDays]: "forever" })).toThrow(
      EnvNames.auditRetentionDays,
    );
  });
});

describe("the trusted CAs' fingerprints of the console API and the sweeper", () => {
  const current = `${"AB:".repeat(31)}CD`;
  const next = `${"0f:".repeat(31)}1e`;
  const sweeperEnv = { ...env, [EnvNames.archiveBucket]: "beacon-archive" };
  const consoleEnv = {
    ...env,
    [EnvNames.agentCaSecretArn]: "arn:agent-ca",
    [EnvNames.webhookTesterFunction]: "beacon-webhook-dispatcher",
  };

  it("are read as a set, in Node's upper-case spelling, and unknown when unset", () => {
    const told = { [EnvNames.trustedCaFingerprints]: `${current}, ${next}` };
    expect(consoleApiConfig({ ...consoleEnv, ...told }).agentCa).toEqual({
      secretArn: "arn:agent-ca",
      trustedFingerprints: new Set([current, next.toUpperCase()]),
    });
    expect(sweeperConfig({ ...sweeperEnv, ...told }).trustedCaFingerprints).toEqual(
      new Set([current, next.toUpperCase()]),
    );
    expect(consoleApiConfig(consoleEnv).agentCa).toEqual({ secretArn: "arn:agent-ca" });
    expect(sweeperConfig(sweeperEnv).trustedCaFingerprints).toBeUndefined();
  });

  it("refuse what is no SHA-256 fingerprint", () => {
    expect(() => sweeperConfig({ ...sweeperEnv, [EnvNames.trustedCaFingerprints]: "AB:CD" })).toThrow(
      EnvNames.trustedCaFingerprints,
    );
  });
});

describe("consoleApiConfig's webhook tester", () => {
  it("names the function that posts tests, and must be given it", () => {
    const consoleEnv = { ...env, [EnvNames.agentCaDir]: "/tmp/ca" };
    expect(() => consoleApiConfig(consoleEnv)).toThrow(EnvNames.webhookTesterFunction);
    expect(
      consoleApiConfig({ ...consoleEnv, [EnvNames.webhookTesterFunction]: "dispatcher" })
        .webhookTesterFunction,
    ).toBe("dispatcher");
  });
});

describe("agentApiConfig's CA bindings", () => {
  it("reads which tenants each CA may speak for", () => {
    const { caBindings } = agentApiConfig({
      ...env,
      [EnvNames.agentCaBindings]: JSON.stringify({
        "CN=Beacon Agent CA": "*",
        "CN=Acme CA": ["acme", "acme-lab"],
      }),
    });
    expect(caBindings()).toEqual(
      new Map<string, unknown>([
        ["CN=Beacon Agent CA", [{ tenant: "*", agentId: { kind: "beacon" } }]],
        [
          "CN=Acme CA",
          [
            { tenant: "acme", agentId: { kind: "beacon" } },
            { tenant: "acme-lab", agentId: { kind: "beacon" } },
          ],
        ],
      ]),
    );
  });

  it("has none when unset: every trusted CA is Beacon's own", () => {
    expect(agentApiConfig(env).caBindings()).toBeUndefined();
  });

  it.each(["not json", "[]", '{"CN=Acme CA": "acme"}', '{"CN=Acme CA": [1]}'])(
    "fails the cold start on %s",
    (value) => {
      expect(() => agentApiConfig({ ...env, [EnvNames.agentCaBindings]: value })).toThrow(
        EnvNames.agentCaBindings,
      );
    },
  );
});

describe("webhookConfig", () => {
  it("allows no private host and trusts public CAs only unless told otherwise, as on AWS", () => {
    expect(webhookConfig({})).toEqual({ policy: { allowedHosts: [] }, caFile: undefined, timeoutMs: 10_000 });
  });

  it("reads the local allow-list and CA file", () => {
    const config = webhookConfig({
      [EnvNames.webhookAllowedHosts]: " 127.0.0.1, LocalHost ,,",
      [EnvNames.webhookCaFile]: "/certs/ca.pem",
    });
    expect(config.policy.allowedHosts).toEqual(["127.0.0.1", "localhost"]);
    expect(config.caFile).toBe("/certs/ca.pem");
  });
});

describe("webhookDeliveryConfig", () => {
  it("keeps deliveries a week unless told otherwise, in the table, announcing on the stream", () => {
    expect(webhookDeliveryConfig(env)).toMatchObject({
      tableName: "beacon",
      streamName: "events",
      retentionDays: 7,
    });
    const kept = webhookDeliveryConfig({ ...env, [EnvNames.webhookDeliveryRetentionDays]: "30" });
    expect(kept.retentionDays).toBe(30);
  });
});

describe("streamConsumerConfig", () => {
  const archive = { [EnvNames.archiveBucket]: "archive" };

  it("puts notifications on no bus unless one is named", () => {
    expect(streamConsumerConfig(archive)).toEqual({
      archiveBucket: "archive",
      notificationBusName: undefined,
    });
    expect(streamConsumerConfig({ ...archive, [EnvNames.notificationBusName]: "" }).notificationBusName).toBe(
      undefined,
    );
    expect(
      streamConsumerConfig({ ...archive, [EnvNames.notificationBusName]: "beacon-prod" }).notificationBusName,
    ).toBe("beacon-prod");
  });
});

describe("the history consumer's configuration", () => {
  it("keeps history 14 days unless BEACON_HISTORY_RETENTION_DAYS says otherwise", () => {
    expect(historyConsumerConfig({ [EnvNames.tableName]: "beacon" })).toEqual({
      tableName: "beacon",
      retentionDays: 14,
    });
    expect(
      historyConsumerConfig({ [EnvNames.tableName]: "beacon", [EnvNames.historyRetentionDays]: "30" })
        .retentionDays,
    ).toBe(30);
  });

  it("fails the cold start on a missing table or a retention that is no positive number", () => {
    expect(() => historyConsumerConfig({})).toThrow(EnvNames.tableName);
    expect(() =>
      historyConsumerConfig({ [EnvNames.tableName]: "beacon", [EnvNames.historyRetentionDays]: "forever" }),
    ).toThrow(EnvNames.historyRetentionDays);
  });
});

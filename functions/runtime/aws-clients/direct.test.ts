import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type CallSettings,
  directCallSettings,
  settingsOfSdkClient,
} from "../../adapters/aws/call-settings.js";
import { makeDocumentClient } from "../aws-clients/dynamodb.js";
import { makeEventBridgeClient } from "../aws-clients/eventbridge.js";
import { makeKinesisClient } from "../aws-clients/kinesis.js";
import { makeS3Client } from "../aws-clients/s3.js";
import { DirectServices, madeForDirectCalls, settingsFromEnvironment } from "./direct.js";

const keys = {
  AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
  AWS_SECRET_ACCESS_KEY: "example-secret",
  AWS_SESSION_TOKEN: "t",
};
const services = [
  ["DynamoDB", DirectServices.dynamodb, makeDocumentClient],
  ["Kinesis", DirectServices.kinesis, makeKinesisClient],
  ["EventBridge", DirectServices.eventbridge, makeEventBridgeClient],
  ["S3", DirectServices.s3, makeS3Client],
] as const;

/** What a call does with settings: where it goes, as whom, and how often and how soon it is made again. */
async function asCalled(settings: CallSettings) {
  const { accessKeyId, secretAccessKey, sessionToken } = await settings.credentials();
  const retries = (await settings.retries()) as unknown as {
    baseDelay: number;
    maxAttemptsProvider: () => Promise<number>;
  };
  return {
    region: settings.region,
    target: settings.target,
    customEndpoint: settings.customEndpoint,
    credentials: { accessKeyId, secretAccessKey, sessionToken },
    retries: {
      strategy: retries.constructor.name,
      baseDelay: retries.baseDelay,
      maxAttempts: await retries.maxAttemptsProvider(),
    },
  };
}

// The SDK reads the process's environment and the shared config file under the home folder: both are set here.
const home = mkdtempSync(path.join(tmpdir(), "beacon-direct-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));
beforeEach(() => {
  vi.stubEnv("HOME", home);
  for (const name of ["AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_ENDPOINT_URL", "AWS_RETRY_MODE", "AWS_REGION"]) {
    vi.stubEnv(name, undefined);
  }
  for (const [, service] of services) vi.stubEnv(service.endpointEnvName, undefined);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe.each(services)("%s's settings from the environment alone", (_name, service, makeSdkClient) => {
  it.each(["us-east-1", "eu-central-1", "ap-southeast-2", "il-central-1"])(
    "are the SDK client's in %s: its regional endpoint, the environment's credentials, its standard retries",
    async (region) => {
      const env = { AWS_REGION: region, ...keys };
      for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
      const settings = settingsFromEnvironment(service, env);

      expect(settings).toBeDefined();
      const client = makeSdkClient(env);
      expect(await asCalled(settings as CallSettings)).toEqual(
        await asCalled(await settingsOfSdkClient(client)),
      );
      expect(settings?.target.hostname).toBe(`${service.hostPrefix}.${region}.amazonaws.com`);
      client.destroy();
    },
  );

  it("are the SDK client's at an endpoint of the operator's own", async () => {
    const env = { AWS_REGION: "us-east-1", [service.endpointEnvName]: "http://127.0.0.1:8000", ...keys };
    const settings = settingsFromEnvironment(service, env);

    const client = makeSdkClient(env);
    expect(await asCalled(settings as CallSettings)).toEqual(
      await asCalled(await settingsOfSdkClient(client)),
    );
    expect(settings).toMatchObject({ customEndpoint: true, target: { hostname: "127.0.0.1", port: 8000 } });
    client.destroy();
  });

  it.each([
    ["credentials from a role's chain", { AWS_ACCESS_KEY_ID: "" }],
    ["FIPS endpoints", { AWS_USE_FIPS_ENDPOINT: "true" }],
    ["dual-stack endpoints", { AWS_USE_DUALSTACK_ENDPOINT: "true" }],
    ["another partition", { AWS_REGION: "cn-north-1" }],
    ["a profile", { AWS_PROFILE: "operations" }],
    ["an endpoint for every service", { AWS_ENDPOINT_URL: "http://127.0.0.1:4566" }],
    ["adaptive retries", { AWS_RETRY_MODE: "adaptive" }],
  ])("are left to the SDK's client where the environment asks for %s", (_what, asked) => {
    expect(settingsFromEnvironment(service, { AWS_REGION: "us-east-1", ...keys, ...asked })).toBeUndefined();
  });
});

describe("a client made for direct calls", () => {
  it("takes the SDK client's settings, made at its first call, where the environment leaves them to it", async () => {
    const env = { AWS_REGION: "us-east-1", AWS_USE_FIPS_ENDPOINT: "true", ...keys };
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    let made = 0;
    let destroyed = 0;
    const client = madeForDirectCalls(DirectServices.dynamodb, env, async () => {
      made++;
      const sdkClient = makeDocumentClient(env);
      return Object.assign(Object.create(sdkClient) as typeof sdkClient, { destroy: () => destroyed++ });
    });

    const settings = await client[directCallSettings]();
    await client[directCallSettings]();

    expect(made).toBe(1);
    expect(settings.target.hostname).toBe("dynamodb-fips.us-east-1.amazonaws.com");
    client.destroy();
    expect(destroyed).toBe(1);
  });

  it("makes no SDK client where the environment says everything", async () => {
    const client = madeForDirectCalls(DirectServices.kinesis, { AWS_REGION: "eu-west-1", ...keys }, () => {
      throw new Error("the SDK's client was made");
    });

    await expect(client[directCallSettings]()).resolves.toMatchObject({
      target: { hostname: "kinesis.eu-west-1.amazonaws.com" },
    });
    client.destroy();
  });
});

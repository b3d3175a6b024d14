/**
 * S3Proxy (org.gaul:s3proxy, Apache-2.0), the local stack's S3: the real S3 REST API, path-style, with
 * AWS signature checks, over a folder of files. It is fetched by Maven with DynamoDB Local's install path
 * (scripts/local/s3proxy/pom.xml, scripts/build/setup.mjs) and runs on the Java DynamoDB Local needs anyway.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ListBucketsCommand } from "@aws-sdk/client-s3";
import { makeS3Client } from "../../functions/runtime/aws-clients/s3.js";
import { AwsEndpointEnvNames } from "../../functions/shared/env-names.js";
import { type ChildService, startChildService } from "./child-service.js";
import { assertPortFree } from "./ports.js";

/** Where scripts/build/setup.mjs puts S3Proxy's jars (from scripts/local/s3proxy/pom.xml). */
const s3ProxyLibDir = fileURLToPath(new URL("../../.beacon/tools/s3proxy/lib", import.meta.url));
const logbackConfig = fileURLToPath(new URL("./s3proxy/logback.xml", import.meta.url));

export interface S3ProxyOptions {
  port: number;
  stateDir: string;
  /** Keep the buckets' files from the last start; otherwise they start empty, like DynamoDB Local in memory. */
  persist?: boolean;
  /**
   * The web pages' origins allowed by CORS to PUT an asset's parts to presigned URLs, with ETag exposed, as
   * the assets bucket's CORS rule on AWS; none without them.
   */
  corsOrigins?: readonly string[];
  /** The identity and credential it checks signatures with, which every local client signs with too. */
  clientEnv: Readonly<Record<string, string | undefined>> & {
    AWS_ACCESS_KEY_ID: string;
    AWS_SECRET_ACCESS_KEY: string;
  };
}

export async function startS3Proxy(options: S3ProxyOptions): Promise<ChildService> {
  if (!existsSync(s3ProxyLibDir)) {
    throw new Error(`S3Proxy is not installed in ${s3ProxyLibDir}; run: node scripts/build/setup.mjs`);
  }
  await assertPortFree(options.port, "s3");
  const dataDir = path.join(options.stateDir, "s3");
  if (!options.persist) rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const endpoint = `http://127.0.0.1:${options.port}`;
  const propertiesFile = path.join(options.stateDir, "s3proxy.properties");
  const { AWS_ACCESS_KEY_ID: identity, AWS_SECRET_ACCESS_KEY: credential } = options.clientEnv;
  writeFileSync(
    propertiesFile,
    [
      `s3proxy.endpoint=${endpoint}`,
      // Requests must be signed (either signature version) with the local identity: as S3 does.
      "s3proxy.authorization=aws-v2-or-v4",
      `s3proxy.identity=${identity}`,
      `s3proxy.credential=${credential}`,
      // The filesystem backend on java.nio (S3Proxy calls the older `filesystem` one deprecated): one folder
      // per bucket, one file per object, under the local folder.
      "jclouds.provider=filesystem-nio2",
      `jclouds.filesystem.basedir=${dataDir}`,
      "jclouds.identity=local",
      "jclouds.credential=local",
      ...corsProperties(options.corsOrigins ?? []),
      "",
    ].join("\n"),
  );
  const client = makeS3Client({ ...options.clientEnv, [AwsEndpointEnvNames.s3]: endpoint });
  try {
    return await startChildService({
      name: "S3Proxy",
      command: "java",
      args: [
        `-Dlogback.configurationFile=${logbackConfig}`,
        "-cp",
        path.join(s3ProxyLibDir, "*"),
        "org.gaul.s3proxy.Main",
        "--properties",
        propertiesFile,
      ],
      cwd: options.stateDir,
      logFile: path.join(options.stateDir, "logs", "s3proxy.log"),
      // A signed request: it answers only once the server runs and takes the local identity.
      probe: async () => {
        await client.send(new ListBucketsCommand({}));
      },
      readyTimeoutMs: 60_000,
    });
  } finally {
    client.destroy();
  }
}

/**
 * S3Proxy's CORS properties: lists separated by spaces, each origin a regular expression, so quoted, and its
 * backslashes doubled for the properties file, which reads a backslash as an escape.
 */
function corsProperties(origins: readonly string[]): string[] {
  if (origins.length === 0) return [];
  return [
    `s3proxy.cors-allow-origins=${origins.map((origin) => origin.replace(/[.*+?^${}()|[\]\\]/g, "\\\\$&")).join(" ")}`,
    "s3proxy.cors-allow-methods=PUT",
    "s3proxy.cors-allow-headers=Content-Type",
    // What a multipart upload's client reads from each part's answer.
    "s3proxy.cors-exposed-headers=ETag",
  ];
}

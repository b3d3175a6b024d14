import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { makeDynamoDbClient } from "../../functions/runtime/aws-clients/dynamodb.js";
import { AwsEndpointEnvNames } from "../../functions/shared/env-names.js";
import { type ProcessService, startChildService } from "./child-service.js";
import { assertPortFree } from "./ports.js";

/** Where scripts/build/setup.mjs puts DynamoDB Local's jars (from scripts/local/dynamodb-local/pom.xml). */
const dynamoDbLocalLibDir = fileURLToPath(new URL("../../.beacon/tools/dynamodb-local/lib", import.meta.url));

export interface DynamoDbLocalOptions {
  port: number;
  stateDir: string;
  /** Keep tables in files under stateDir/dynamodb instead of memory. */
  persist?: boolean;
  /** Credentials and region for the readiness probe. */
  clientEnv: Readonly<Record<string, string | undefined>>;
}

export async function startDynamoDbLocal(options: DynamoDbLocalOptions): Promise<ProcessService> {
  if (!existsSync(dynamoDbLocalLibDir)) {
    throw new Error(
      `DynamoDB Local is not installed in ${dynamoDbLocalLibDir}; run: node scripts/build/setup.mjs`,
    );
  }
  await assertPortFree(options.port, "dynamodb");
  const storage = options.persist
    ? ["-dbPath", ensureDir(path.join(options.stateDir, "dynamodb"))]
    : ["-inMemory"];
  const client = makeDynamoDbClient({
    ...options.clientEnv,
    [AwsEndpointEnvNames.dynamodb]: `http://127.0.0.1:${options.port}`,
  });
  try {
    return await startChildService({
      name: "DynamoDB Local",
      command: "java",
      // The jar carries sqlite4java's native libraries for every platform and loads the right one itself.
      // -sharedDb: one database whatever access key or region a client signs with. -disableTelemetry:
      // a development stack reports nothing to anyone.
      args: [
        "-cp",
        path.join(dynamoDbLocalLibDir, "*"),
        "com.amazonaws.services.dynamodbv2.local.main.ServerRunner",
        "-port",
        String(options.port),
        "-sharedDb",
        "-disableTelemetry",
        ...storage,
      ],
      cwd: options.stateDir,
      logFile: path.join(options.stateDir, "logs", "dynamodb-local.log"),
      probe: async () => {
        await client.send(new ListTablesCommand({ Limit: 1 }));
      },
      readyTimeoutMs: 60_000,
    });
  } finally {
    client.destroy();
  }
}

function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

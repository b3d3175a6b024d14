/**
 * moto (Apache-2.0) in server mode, the local stack's EventBridge: the real PutEvents API, with rules that
 * match event patterns and deliver to their targets, SQS queues among them, all in memory. scripts/build/setup.mjs
 * installs it from PyPI into .beacon/tools/moto. It serves every service it emulates on one port; Beacon aims its
 * EventBridge client at it (AWS_ENDPOINT_URL_EVENTBRIDGE), and its Secrets Manager and SSM clients
 * (AWS_ENDPOINT_URL_SECRETS_MANAGER, AWS_ENDPOINT_URL_SSM), as moto serves both with their real APIs, an SSM
 * SecureString decrypted on GetParameter WithDecryption as on AWS. It starts in about 2 s and idles at about
 * 80 MB and no CPU.
 */
import path from "node:path";
import { ListEventBusesCommand } from "@aws-sdk/client-eventbridge";
import { makeEventBridgeClient } from "../../functions/runtime/aws-clients/eventbridge.js";
import { AwsEndpointEnvNames } from "../../functions/shared/env-names.js";
import { pythonTool } from "../build/python-tool.js";
import { type ChildService, startChildService } from "./child-service.js";
import { assertPortFree } from "./ports.js";

export interface MotoServerOptions {
  port: number;
  stateDir: string;
  /** The region and placeholder credentials every local client signs with. */
  clientEnv: Readonly<Record<string, string | undefined>>;
}

export async function startMotoServer(options: MotoServerOptions): Promise<ChildService> {
  const binary = pythonTool("moto", "moto_server");
  await assertPortFree(options.port, "eventbridge");
  const client = makeEventBridgeClient({
    ...options.clientEnv,
    [AwsEndpointEnvNames.eventbridge]: `http://127.0.0.1:${options.port}`,
  });
  try {
    return await startChildService({
      name: "moto",
      command: binary,
      args: ["--host", "127.0.0.1", "--port", String(options.port)],
      cwd: options.stateDir,
      logFile: path.join(options.stateDir, "logs", "moto.log"),
      // A signed EventBridge request: it answers only once the server runs.
      probe: async () => {
        await client.send(new ListEventBusesCommand({}));
      },
      readyTimeoutMs: 60_000,
    });
  } finally {
    client.destroy();
  }
}

/**
 * The functions process (functions-process.ts): started by the local stack with its options, it loads the console
 * API, the webhook dispatcher, the sweeper and the stream consumer, answers `ready`, and runs them until told to
 * stop or until the stack's process is gone.
 */
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import { ensureConsoleIssuer, makeJwtAuthorizer } from "./console-issuer.js";
import { FunctionLog } from "./function-logs.js";
import { loadConsoleApi } from "./function-routes.js";
import type { FunctionsProcessMessage, FunctionsProcessOptions } from "./functions-process.js";
import { startConsoleGateway } from "./gateway.js";
import { startLocalLambdaEndpoint } from "./lambda-endpoint.js";
import { startStreamPoller } from "./stream-poller.js";
import {
  loadWebhookDispatcher,
  startScheduleTimer,
  startSweeperTimer,
  sweepIntervalSeconds,
} from "./sweeper-timer.js";

/** How long an orderly stop may take once the stack's process is gone, before this one ends regardless. */
const ORPHAN_STOP_MS = 5_000;

const log = (line: string) => console.log(line);
/** What is running, in start order; stopped in reverse. */
const running: Array<() => Promise<void>> = [];
let stopping: Promise<void> | undefined;

function stopAndExit(exitCode: number): Promise<void> {
  stopping ??= (async () => {
    for (const stop of running.reverse()) {
      try {
        await stop();
      } catch (error) {
        console.error(`Beacon functions: error while stopping: ${(error as Error).message}`);
      }
    }
    process.exit(exitCode);
  })();
  return stopping;
}

const answer = (message: FunctionsProcessMessage) => process.send?.(message);

async function start(options: FunctionsProcessOptions): Promise<void> {
  const { functionsEnv, webhookEnv, certsDir, agentApiUrl } = options;
  const functionLog = FunctionLog.open({
    file: options.logFile,
    terminalLevel: options.terminalLevel,
    join: true,
  });
  running.push(async () => functionLog.close());
  // The console has the dispatcher post its webhook tests, through Lambda's Invoke API as on AWS.
  const webhookDispatcher = await loadWebhookDispatcher({ ...functionsEnv, ...webhookEnv }, functionLog);
  running.push(() => webhookDispatcher.shutdown());
  const lambdaEndpoint = await startLocalLambdaEndpoint({
    port: options.lambdaPort,
    functions: [webhookDispatcher],
    log,
  });
  running.push(() => lambdaEndpoint.close());
  // The console issues agent certificates from the same dev CA the agent gateway trusts.
  const consoleApi = await loadConsoleApi(
    {
      ...functionsEnv,
      [EnvNames.webhookAllowedHosts]: webhookEnv[EnvNames.webhookAllowedHosts] ?? "",
      [EnvNames.agentCaDir]: certsDir,
      [EnvNames.agentApiUrl]: agentApiUrl,
      [AwsEndpointEnvNames.lambda]: lambdaEndpoint.url,
      [EnvNames.webhookTesterFunction]: webhookDispatcher.name,
      // Rollouts' views show their pace by the sweeper's interval, this stack's timer's.
      [EnvNames.sweeperIntervalSeconds]: String(sweepIntervalSeconds()),
    },
    functionLog,
  );
  running.push(() => consoleApi.shutdown());
  const consoleGateway = await startConsoleGateway({
    port: options.consolePort,
    routes: consoleApi.routes,
    authorizer: await makeJwtAuthorizer(await ensureConsoleIssuer(options.issuerDir)),
  });
  running.push(() => consoleGateway.close());
  // Rollouts send agents to flow downloads on the agent gateway too; expiry notices skip retired CAs' certificates.
  running.push(
    await startSweeperTimer(
      {
        ...functionsEnv,
        ...webhookEnv,
        [EnvNames.agentApiUrl]: agentApiUrl,
        [EnvNames.agentCaDir]: certsDir,
      },
      log,
      functionLog,
    ),
  );
  running.push(await startStreamPoller({ ...options.streamEnv, ...webhookEnv }, log, functionLog));
  running.push(startScheduleTimer(webhookDispatcher, log));
  answer({
    type: "ready",
    ready: {
      consoleUrl: consoleGateway.url,
      lambdaUrl: lambdaEndpoint.url,
      webhookDispatcherName: webhookDispatcher.name,
    },
  });
}

process.on("message", (message: { type: "start"; options: FunctionsProcessOptions } | { type: "stop" }) => {
  if (message.type === "stop") {
    void stopAndExit(0);
    return;
  }
  start(message.options).catch(async (error: unknown) => {
    answer({ type: "failed", message: error instanceof Error ? error.message : String(error) });
    await stopAndExit(1);
  });
});
// The stack's process is gone (stopped, crashed or killed): nothing is left to serve.
process.once("disconnect", () => {
  setTimeout(() => process.exit(1), ORPHAN_STOP_MS);
  void stopAndExit(0);
});

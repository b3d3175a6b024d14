/**
 * `npm start`: Beacon on this machine. DynamoDB Local, Redis, a Kinesis emulator, S3Proxy and moto (its
 * EventBridge) as child processes, the agent API behind the local mutual-TLS gateway in this process, the web
 * console built and served, and in a process of their own (functions-process.ts) the console API behind the local
 * JWT-verifying gateway, the sweeper and the webhook dispatcher on one-minute timers, the dispatcher also behind a
 * local Lambda Invoke endpoint (the console's webhook tests), and the stream consumer fed by a poller of the Kinesis
 * emulator. Ctrl-C (or SIGTERM) stops everything and exits 0; so does its stdin closing, when
 * BEACON_STOP_WHEN_STDIN_CLOSES=1 (stop-with-stdin.ts).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { allAgentRoutes, servedRouteKeys } from "../../functions/core/c2/routes.js";
import { AwsEndpointEnvNames, EnvNames } from "../../functions/shared/env-names.js";
import { buildWebConsole } from "../../web/tools/build.js";
import { parseCommandLine } from "../common/command-line.mjs";
import { LocalStackNames, startBackends } from "./backends.js";
import { registerDevCertificates } from "./certificate-registration.js";
import { agentTrust, DEV_TENANT, ensureDevCertificates } from "./certs.js";
import { consoleToken, ensureConsoleIssuer, LOCAL_ISSUER_DIR } from "./console-issuer.js";
import {
  FunctionLog,
  functionLogIn,
  LOG_LEVEL_ENV_NAME,
  TerminalLevels,
  terminalLevelFrom,
} from "./function-logs.js";
import { followAgentTrust, loadAgentApi } from "./function-routes.js";
import { startFunctionsProcess } from "./functions-process.js";
import { startAgentGateway } from "./gateway.js";
import { KinesisEmulators, kinesisEmulatorEnvName, kinesisEmulatorFromEnv } from "./kinesis-emulator.js";
import { LOCAL_DIR_ENV_NAME, localDir } from "./local-dir.js";
import { assertPortFree, LocalServices, localPorts } from "./ports.js";
import { stopWhenStdinCloses } from "./stop-with-stdin.js";
import { startStreamPassThrough } from "./stream-outage.js";
import { sweepIntervalSeconds } from "./sweeper-timer.js";
import { startWebServer } from "./web-server.js";
import { receiverCertsDir } from "./webhook-receiver.js";

const beaconDir = fileURLToPath(new URL("../../.beacon/", import.meta.url));
const certsDir = path.join(beaconDir, "certs");
/** Long enough for a working day at the terminal; `npm run token` makes more. */
const DEV_TOKEN_LIFETIME_SECONDS = 12 * 3600;
/** Set to "true" to keep DynamoDB Local's tables (and S3Proxy's buckets) across restarts, in the local folder. */
const persistDynamoDbEnvName = "BEACON_DYNAMODB_PERSIST";
/** Set to "true" to run Redis as a cluster of three masters, as ElastiCache Serverless runs it. */
const redisClusterEnvName = "BEACON_LOCAL_REDIS_CLUSTER";

const USAGE = `Usage: npm start

Runs Beacon on this machine until Ctrl-C. Set by the environment:
  ${LOG_LEVEL_ENV_NAME}  the functions' records the terminal shows, at this level and above: ${TerminalLevels.join(", ")} (default warn)
  ${Object.values(LocalServices)
    .map(({ envName, defaultPort, label }) => `${envName}=${defaultPort}: ${label}'s port`)
    .join("\n  ")}
  ${LOCAL_DIR_ENV_NAME}  the folder of the emulators' data and the logs (default .beacon/local)
  ${persistDynamoDbEnvName}=true  keep DynamoDB Local's tables and S3Proxy's buckets across restarts
  ${redisClusterEnvName}=true  run Redis as a cluster of three masters, as ElastiCache Serverless does
  ${kinesisEmulatorEnvName}  ${KinesisEmulators.join(" or ")} (default kinesalite)`;

const log = (line: string) => console.log(line);

/** What is running, in start order; stopped in reverse. */
const running: Array<() => Promise<void>> = [];
let stopping = false;

async function stopAndExit(exitCode: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    log("Beacon: stopping");
    for (const stop of running.reverse()) {
      try {
        await stop();
      } catch (error) {
        console.error(`Beacon: error while stopping: ${(error as Error).message}`);
      }
    }
  }
  process.exit(exitCode);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  // Children of a start still in progress die with this process (see child-service.ts).
  process.once(signal, () => void stopAndExit(0));
}
stopWhenStdinCloses(process.env, () => void stopAndExit(0));

async function start(): Promise<void> {
  log("Beacon: starting the local stack");
  const terminalLevel = terminalLevelFrom(process.env[LOG_LEVEL_ENV_NAME]);
  const ports = localPorts();
  // Checked first, so a taken port costs no wait for the backends.
  await assertPortFree(ports.agent, "agent");
  await assertPortFree(ports.console, "console");
  await assertPortFree(ports.web, "web");
  await assertPortFree(ports.lambda, "lambda");
  const backends = await startBackends({
    stateDir: localDir(),
    ports,
    kinesisEmulator: kinesisEmulatorFromEnv(),
    ...LocalStackNames,
    notificationBus: { name: LocalStackNames.notificationBusName, port: ports.eventbridge },
    log,
    // The page sends an asset's parts straight to S3Proxy, by the names the web console answers on.
    browserOrigins: [`http://127.0.0.1:${ports.web}`, `http://localhost:${ports.web}`],
    persistDynamoDb: process.env[persistDynamoDbEnvName] === "true",
    redisCluster: process.env[redisClusterEnvName] === "true",
  });
  running.push(() => backends.stop());
  // The functions reach the stream through a pass-through that `npm run stream-outage` can cut.
  const streamPassThrough = await startStreamPassThrough({ targetPort: ports.kinesis, localDir: localDir() });
  running.push(() => streamPassThrough.close());
  const functionsEnv = { ...backends.env, [AwsEndpointEnvNames.kinesis]: streamPassThrough.url };

  // The functions' log records and metric lines, in full; the terminal shows their warnings and errors.
  const functionLog = FunctionLog.open({
    file: functionLogIn(localDir()),
    terminalLevel,
  });
  running.push(async () => functionLog.close());
  log(`certificates: ${certsDir}`);
  const certificates = await ensureDevCertificates(certsDir);
  await registerDevCertificates(certsDir, backends.env, log);
  // Both APIs send agents to flow downloads on the agent gateway.
  const agentApiUrl = `https://127.0.0.1:${ports.agent}`;
  // The CAs the gateway trusts and the tenants each may speak for, as read at start; the gateway reads the
  // folder again when it changes (npm run ca, npm run tenant-ca) and hands the agent API the new bindings.
  const { bindings } = await agentTrust(certsDir);
  // Event subscriptions may deliver to receivers on this machine (npm run webhook-receiver), whose certificate
  // a CA of their own signed (not the agents' dev CA, which rotates); on AWS every private address is refused
  // and only public CAs are trusted.
  const receiverCertificates = await ensureDevCertificates(receiverCertsDir(beaconDir));
  const webhookEnv = {
    [EnvNames.webhookAllowedHosts]: "127.0.0.1,localhost",
    [EnvNames.webhookCaFile]: receiverCertificates.caPath,
  };
  // The console, the sweeper, the webhook dispatcher and the stream consumer run in a process of their own, as
  // functions of their own on AWS, so that this process's event loop serves agents only; it loads them meanwhile.
  const functionsStarting = startFunctionsProcess(
    {
      logFile: functionLog.file,
      terminalLevel,
      functionsEnv,
      streamEnv: backends.env,
      webhookEnv,
      certsDir,
      agentApiUrl,
      consolePort: ports.console,
      lambdaPort: ports.lambda,
      issuerDir: LOCAL_ISSUER_DIR,
    },
    log,
  );
  // Stopped however its start ends, so that no process of it outlives this one; a failed start is reported where
  // it is awaited below.
  const functionsStarted = functionsStarting.catch(() => undefined);
  running.push(async () => (await functionsStarted)?.stop());
  const agentApi = await loadAgentApi(
    {
      ...functionsEnv,
      [EnvNames.agentApiUrl]: agentApiUrl,
      [EnvNames.agentCaBindings]: JSON.stringify(bindings),
    },
    functionLog,
  );
  running.push(() => agentApi.shutdown());
  const gateway = await startAgentGateway({
    port: ports.agent,
    certsDir,
    routes: agentApi.routes,
    onTrust: followAgentTrust,
  });
  running.push(() => gateway.close());
  const functions = await functionsStarting;
  const issuer = await ensureConsoleIssuer(LOCAL_ISSUER_DIR);
  const webStarted = Date.now();
  const webBuild = await buildWebConsole(path.join(localDir(), "web"));
  log(
    `web console: ${webBuild.built ? `built in ${((Date.now() - webStarted) / 1000).toFixed(1)} s` : "build up to date"}, ${webBuild.dir}`,
  );
  const webServer = await startWebServer({
    port: ports.web,
    root: webBuild.dir,
    consoleApiUrl: functions.consoleUrl,
    issuer,
    storageOrigin: new URL(backends.env[AwsEndpointEnvNames.s3] ?? "").origin,
  });
  running.push(() => webServer.close());
  const devToken = await consoleToken(
    issuer,
    { tenant: DEV_TENANT, role: "admin" },
    DEV_TOKEN_LIFETIME_SECONDS,
  );

  const { env } = backends;
  log("");
  log(
    `  agent API  ${gateway.url}: ${servedRouteKeys(allAgentRoutes)
      .map((route) => route.path)
      .join(", ")} (mutual TLS)`,
  );
  log(`             CA ${certificates.caPath}`);
  log(`             client certificates ${certificates.fleet.certPath}, ${certificates.agent.certPath}`);
  log(
    `  web        ${webServer.url} the web console, in a browser (local sign-in: pick a tenant and a role)`,
  );
  log(`  console    ${functions.consoleUrl}/api/v1 (bearer token; OpenAPI at /api/v1/openapi.json)`);
  log(
    `             token for tenant ${DEV_TENANT}, role admin, valid 12 hours (more: npm run token -- --tenant T --role R):`,
  );
  log(`             ${devToken}`);
  log(
    `  sweeper    every ${sweepIntervalSeconds()} s: advances rollouts, times out operations agents never took or acknowledged`,
  );
  log(
    `  webhooks   every ${sweepIntervalSeconds()} s: the dispatcher retries deliveries to event subscriptions`,
  );
  log(
    `  stream     the stream consumer reads every event off ${env[EnvNames.streamName]} into the archive, s3://${env[EnvNames.archiveBucket]}/events/`,
  );
  log(
    `  Lambda     ${functions.lambdaUrl}  Invoke of ${functions.webhookDispatcherName} (the console's webhook tests)`,
  );
  log(`  DynamoDB   ${env[AwsEndpointEnvNames.dynamodb]}  table ${env[EnvNames.tableName]}`);
  log(`  Kinesis    ${env[AwsEndpointEnvNames.kinesis]}  stream ${env[EnvNames.streamName]}`);
  log(
    `             the functions reach it through ${streamPassThrough.url} (npm run stream-outage cuts it off)`,
  );
  log(
    `  S3         ${env[AwsEndpointEnvNames.s3]}  bucket ${env[EnvNames.assetBucket]} (S3Proxy, path-style)`,
  );
  log(`  Redis      ${env[EnvNames.redisUrl]}`);
  log(
    `  EventBus   ${env[AwsEndpointEnvNames.eventbridge]}  bus ${env[EnvNames.notificationBusName]}, every notification (moto's EventBridge)`,
  );
  log(`  logs       ${functionLog.file}: every function's log records and metrics (JSON)`);
  log(
    `             this terminal shows ${terminalLevel} and above (${LOG_LEVEL_ENV_NAME}=${TerminalLevels.join("|")})`,
  );
  log("");
  log("Beacon is ready");
}

parseCommandLine(USAGE, { options: {} });
start().catch((error: unknown) => {
  console.error(`Beacon: could not start: ${error instanceof Error ? error.message : String(error)}`);
  void stopAndExit(1);
});

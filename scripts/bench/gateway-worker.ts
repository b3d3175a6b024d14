/**
 * One process of a benchmark's agent API when it runs in several (`startBenchStack`'s `workers`): the agent API's
 * handler behind the local mutual-TLS gateway, as in one process, on the port the primary shares among its
 * workers (node:cluster hands each new connection to the next worker, as a load balancer spreads agents over the
 * agent service's tasks). Tells the primary where it listens and logs, and stops when told to.
 */
import cluster from "node:cluster";
import { once } from "node:events";
import { openTemporaryFunctionLog } from "../local/function-logs.js";
import { loadAgentApi } from "../local/function-routes.js";
import { startAgentGateway } from "../local/gateway.js";
import { GatewayWorkerMessages, type GatewayWorkerSettings, WORKER_SETTINGS_ENV_NAME } from "./workers.js";

if (!cluster.isWorker || !process.send) throw new Error("gateway-worker.ts runs as a node:cluster worker");
const settings = JSON.parse(process.env[WORKER_SETTINGS_ENV_NAME] as string) as GatewayWorkerSettings;
const functionLog = openTemporaryFunctionLog();
const agentApi = await loadAgentApi(settings.env, functionLog.log);
const gateway = await startAgentGateway({
  port: settings.port,
  certsDir: settings.certsDir,
  routes: agentApi.routes,
});
process.send({ kind: GatewayWorkerMessages.listening, functionLogFile: functionLog.log.file });

const [message] = (await once(process, "message")) as [{ kind?: string }];
if (message.kind !== GatewayWorkerMessages.stop)
  throw new Error(`unexpected message ${JSON.stringify(message)}`);
await gateway.close();
await agentApi.shutdown();
functionLog.close();
process.disconnect();

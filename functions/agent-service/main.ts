/**
 * The agent service: the agent API's handler module in a long-running Node process on ECS Fargate, behind the
 * load balancer, for fleets whose request volume makes one Lambda invocation per heartbeat cost more than a few
 * tasks do. Each request is one invocation of the same handler Lambda runs, with the same deadline.
 */
import { totalmem } from "node:os";
import { FunctionTimeouts } from "../shared/function-timeouts.js";
// Loaded before the handler modules, whose Powertools and AWS clients must find invocations scoped.
import { invoker } from "../shared/invocations.js";
import { type AlbHandler, albTarget, clientCertificatePemOf } from "./alb-target.js";
import { agentServiceConfig } from "./config.js";
import { type ServiceRoute, startAgentService } from "./server.js";
import { AgentServiceSettings, DebugBundleRoute } from "./settings.js";

const agentApi = await import("../agent-api/handler.js");
const bundleIntake = await import("../bundle-intake/intake.js");
const config = agentServiceConfig();

/** Requests the service reads itself, as streams; the agent API answers every other one. */
const routes: ServiceRoute[] = [
  // Debug bundles up to 16 MiB, streamed to S3 as they arrive: more than a Lambda target or invocation takes.
  {
    ...DebugBundleRoute,
    handle: (request, response) =>
      bundleIntake.handleDebugBundleUpload(request, response, clientCertificatePemOf(request)),
  },
];

const invokeAgentApi = invoker(
  {
    name: "agent-api",
    timeoutSeconds: FunctionTimeouts.agentApi,
    arn: "",
    memoryLimitInMB: String(Math.round(totalmem() / 2 ** 20)),
    logGroupName: "",
    logStreamName: "",
  },
  agentApi.handler,
) as AlbHandler;

const service = await startAgentService({
  port: config.port,
  routes,
  fallback: albTarget(invokeAgentApi, config.maxBodyBytes),
  drainMs: AgentServiceSettings.drainSeconds * 1000,
});

async function stop(): Promise<void> {
  await service.drain();
  await Promise.all([agentApi.shutdown(), bundleIntake.shutdown()]);
  process.exit(0);
}

for (const signal of ["SIGTERM", "SIGINT"] as const)
  process.once(signal, () => {
    stop().catch((error: unknown) => {
      console.error(
        JSON.stringify({ level: "ERROR", message: "agent service: stop failed", error: String(error) }),
      );
      process.exit(1);
    });
  });

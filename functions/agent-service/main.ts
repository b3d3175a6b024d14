/**
 * The agent service: the agent API in a long-running Node process on ECS Fargate, behind the load balancer, for
 * fleets whose request volume makes one Lambda invocation per heartbeat cost more than a few tasks do: in plain
 * HTTP behind an Application Load Balancer, or terminating mutual TLS itself behind a Network Load Balancer. Each request
 * is served as an invocation of the agent-api function is, in a scope of its own, with the same deadline.
 */
import { AgentRoutes, loadBalancerPathPattern } from "../core/c2/routes.js";
// Loaded before the agent API's modules, whose Powertools and AWS clients must find requests scoped.
import "../shared/invocations.js";
import { agentAppHandler, clientCertificatePemOf } from "./agent-app.js";
import { agentServiceConfig } from "./config.js";
import { type ServiceRoute, startAgentService } from "./server.js";
import { AgentServiceSettings } from "./settings.js";

const agentApi = await import("../agent-api/app.js");
const bundleIntake = await import("../bundle-intake/handler.js");
const config = agentServiceConfig();

/** Requests the service reads itself, as streams; the agent API answers every other one. */
const routes: ServiceRoute[] = [
  // Debug bundles up to 16 MiB, streamed to S3 as they arrive: more than a Lambda target or invocation takes. The
  // load balancer sends them here by the same pattern whichever compute runs the agent API.
  {
    method: AgentRoutes.debugBundle.method,
    path: loadBalancerPathPattern(AgentRoutes.debugBundle.path),
    handle: (request, response) =>
      bundleIntake.handleDebugBundleUpload(request, response, clientCertificatePemOf(request)),
  },
];

const service = await startAgentService({
  port: config.port,
  routes,
  fallback: agentAppHandler(agentApi.serveAgentRequest, {
    maxBodyBytes: config.maxBodyBytes,
    requestBudgetMs: AgentServiceSettings.requestBudgetSeconds * 1000,
    logger: agentApi.logger,
    name: "agent-api",
  }),
  drainMs: AgentServiceSettings.drainSeconds * 1000,
  ...(config.tls ? { tls: config.tls } : {}),
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

/**
 * How the agent service and its ECS task agree with each other and with the load balancer in front of it. The CDK
 * app reads these too, so the container's port, its health check and its stop timeout cannot drift from the
 * server's.
 */
export const AgentServiceSettings = {
  port: 8080,
  /** 200 while the service takes requests, 503 once it drains: the target group's health check. */
  healthPath: "/health",
  /** The load balancer's default idle timeout: it may reuse a connection to a target idle this long. */
  loadBalancerIdleTimeoutSeconds: 60,
  /**
   * Above the load balancer's idle timeout, so the service never closes a connection the balancer may still send
   * a request on (which would answer that request 502).
   */
  keepAliveTimeoutSeconds: 65,
  /** Time in-flight requests get to finish after SIGTERM: twice the agent API's deadline (FunctionTimeouts). */
  drainSeconds: 20,
  /** ECS's wait between SIGTERM and SIGKILL: the drain, then the clients' closing, with room to spare. */
  stopTimeoutSeconds: 30,
} as const;

/**
 * Where agents upload debug bundles (up to 16 MiB, streamed): on the load balancer, the rule that sends them to the
 * agent service whichever compute runs the agent API, as ALB → Lambda caps a body at 1 MB.
 */
export const DebugBundleRoute = { method: "POST", path: "/c2/debug-bundles/*" } as const;

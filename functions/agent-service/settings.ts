import { FunctionTimeouts } from "../shared/function-timeouts.js";

/**
 * How the agent service and its ECS task agree with each other and with the load balancer in front of it. The CDK
 * app reads these too, so the container's port, its health check and its stop timeout cannot drift from the
 * server's.
 */
export const AgentServiceSettings = {
  port: 8080,
  /**
   * Where a service that terminates mutual TLS (behind a Network Load Balancer) answers its health check in plain
   * HTTP: a load balancer's health check presents no client certificate, so it cannot be asked on the TLS port.
   */
  healthPort: 8081,
  /** 200 while the service takes requests, 503 once it drains: the target group's health check. */
  healthPath: "/health",
  /**
   * How long the load balancer keeps an idle connection, an agent's or a target's: nearly as long as MiNiFi Java's
   * connection pool keeps one (5 minutes), so that a Java agent heartbeating every minute, or every four, reuses
   * its connection instead of paying a new mutual-TLS handshake each time (the AWS default, 60 s, is a race with
   * a 60 s heartbeat). C++ agents close theirs after each request either way. Under 300 s so that the service's
   * headers timeout (keep-alive + 1 s) stays within Node's default request timeout, as Node requires.
   */
  loadBalancerIdleTimeoutSeconds: 290,
  /**
   * Above the load balancer's idle timeout, so the service never closes a connection the balancer may still send
   * a request on (which would answer that request 502).
   */
  keepAliveTimeoutSeconds: 295,
  /** The time each request is given, as each invocation of the agent-api function is (FunctionTimeouts). */
  requestBudgetSeconds: FunctionTimeouts.agentApi,
  /** Time in-flight requests get to finish after SIGTERM: twice a request's budget. */
  drainSeconds: 20,
  /** ECS's wait between SIGTERM and SIGKILL: the drain, then the clients' closing, with room to spare. */
  stopTimeoutSeconds: 30,
} as const;

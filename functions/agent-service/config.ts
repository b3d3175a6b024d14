import { agentApiConfig, numberEnv } from "../shared/config.js";
import { EnvNames } from "../shared/env-names.js";
import { AgentServiceSettings } from "./settings.js";

/** What the service needs to terminate mutual TLS itself: its identity, and the CAs it accepts clients of. */
export interface AgentServiceTls {
  /** PEM: the server certificate first, then its intermediates (a short chain sends fewer bytes per handshake). */
  certificatePem: string;
  keyPem: string;
  /** Every CA whose client certificates are accepted: the same bundle as the load balancer's trust store. */
  caBundlePem: string;
  /** The plain-HTTP port of the health check. */
  healthPort: number;
}

export interface AgentServiceConfig {
  /** The port the agent service listens on: plain HTTP behind an ALB, mutual TLS with `tls`. */
  port: number;
  /** The agent API's own limit on a body: the service holds no more of a request than the handler takes. */
  maxBodyBytes: number;
  /** Set when the service terminates mutual TLS itself (behind a Network Load Balancer passing TCP through). */
  tls?: AgentServiceTls;
}

const tlsNames = [
  EnvNames.agentServiceTlsCertificate,
  EnvNames.agentServiceTlsKey,
  EnvNames.agentServiceCaBundle,
] as const;

/** The agent service runs the agent API's handler module, so its environment is the agent API's too. */
export function agentServiceConfig(
  env: Record<string, string | undefined> = process.env,
): AgentServiceConfig {
  const port = numberEnv(env, EnvNames.agentServicePort, AgentServiceSettings.port);
  const given = tlsNames.filter((name) => env[name]);
  const [certificatePem, keyPem, caBundlePem] = tlsNames.map((name) => env[name]);
  // Half a TLS configuration would serve plain HTTP where mutual TLS was meant: refused at start.
  if (given.length > 0 && given.length < tlsNames.length)
    throw new Error(
      `The agent service terminates TLS with ${tlsNames.join(", ")} together; only ${given.join(", ")} set`,
    );
  const tls =
    certificatePem && keyPem && caBundlePem
      ? {
          certificatePem,
          keyPem,
          caBundlePem,
          healthPort: numberEnv(env, EnvNames.agentServiceHealthPort, AgentServiceSettings.healthPort),
        }
      : undefined;
  if (tls && tls.healthPort === port)
    throw new Error(
      `${EnvNames.agentServiceHealthPort} must differ from ${EnvNames.agentServicePort} (${port})`,
    );
  return {
    port,
    maxBodyBytes: agentApiConfig(env).maxInflatedBytes,
    ...(tls ? { tls } : {}),
  };
}

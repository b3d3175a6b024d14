import net from "node:net";

/** The local stack's listening services, each on a port a user can move with an environment variable. */
export const LocalServices = {
  dynamodb: { label: "DynamoDB Local", envName: "BEACON_DYNAMODB_PORT", defaultPort: 8000 },
  redis: { label: "Redis", envName: "BEACON_REDIS_PORT", defaultPort: 6379 },
  kinesis: { label: "the Kinesis emulator", envName: "BEACON_KINESIS_PORT", defaultPort: 4567 },
  s3: { label: "S3Proxy", envName: "BEACON_S3_PORT", defaultPort: 9000 },
  eventbridge: { label: "moto (EventBridge)", envName: "BEACON_EVENTBRIDGE_PORT", defaultPort: 4010 },
  lambda: { label: "the local Lambda endpoint", envName: "BEACON_LAMBDA_PORT", defaultPort: 9001 },
  agent: { label: "the agent API", envName: "BEACON_AGENT_PORT", defaultPort: 8443 },
  console: { label: "the console API", envName: "BEACON_CONSOLE_PORT", defaultPort: 8080 },
  web: { label: "the web console", envName: "BEACON_WEB_PORT", defaultPort: 8081 },
} as const;

export type LocalService = keyof typeof LocalServices;
export type LocalPorts = Record<LocalService, number>;

/** Default ports, each overridden by its environment variable when set. */
export function localPorts(env: Readonly<Record<string, string | undefined>> = process.env): LocalPorts {
  const portOf = (service: LocalService): number => {
    const { envName, defaultPort } = LocalServices[service];
    const value = env[envName];
    if (value === undefined || value === "") return defaultPort;
    const port = Number(value);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      throw new Error(`${envName}=${value} is not a TCP port (1-65535)`);
    }
    return port;
  };
  return {
    dynamodb: portOf("dynamodb"),
    redis: portOf("redis"),
    kinesis: portOf("kinesis"),
    s3: portOf("s3"),
    eventbridge: portOf("eventbridge"),
    lambda: portOf("lambda"),
    agent: portOf("agent"),
    console: portOf("console"),
    web: portOf("web"),
  };
}

/**
 * Fails with a message naming the variable to change when something already listens on the port.
 * Starting a service there would otherwise either exit with a bind error buried in its log or, worse,
 * leave the readiness check answered by the process that holds the port.
 */
export async function assertPortFree(port: number, service: LocalService): Promise<void> {
  const listener = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      listener.once("error", reject);
      // Emulators listen on all interfaces; a holder of either the wildcard or loopback address conflicts here.
      listener.listen({ port, host: "0.0.0.0", exclusive: true }, resolve);
    });
  } catch (error) {
    const { label, envName } = LocalServices[service];
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new Error(`port ${port} for ${label} is taken; set ${envName}`);
    }
    throw new Error(
      `cannot listen on port ${port} for ${label} (${(error as Error).message}); set ${envName}`,
    );
  } finally {
    await closeListener(listener);
  }
}

/** Ports the system hands out as free, distinct from each other; for tests that must not collide. */
export async function findFreePorts(count: number): Promise<number[]> {
  // All listeners stay open until every port is known, so the system cannot hand the same port out twice.
  const listeners = Array.from({ length: count }, () => net.createServer());
  try {
    return await Promise.all(
      listeners.map(
        (listener) =>
          new Promise<number>((resolve, reject) => {
            listener.once("error", reject);
            listener.listen({ port: 0, host: "127.0.0.1" }, () =>
              resolve((listener.address() as net.AddressInfo).port),
            );
          }),
      ),
    );
  } finally {
    await Promise.all(listeners.map(closeListener));
  }
}

export async function findFreePort(): Promise<number> {
  const [port] = await findFreePorts(1);
  if (port === undefined) throw new Error("no free port found");
  return port;
}

function closeListener(listener: net.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!listener.listening) resolve();
    else listener.close(() => resolve());
  });
}

import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { startBackends } from "../local/backends.js";
import { kinesisEmulatorFromEnv } from "../local/kinesis-emulator.js";
import { findFreePorts } from "../local/ports.js";
import { clusterNodesOn, startRedisCluster } from "../local/redis-cluster.js";
import { findRedisServerBinary } from "../local/redis-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The backends' environment (endpoints, names, placeholder credentials) for handlers under test. */
    beaconEnv: Record<string, string>;
    /** For tests that run a Redis of their own, e.g. to take it away mid-test. */
    redisServerBinary: string;
    /**
     * A Redis Cluster of three masters (cluster mode, as on AWS), for BEACON_REDIS_URL. One test file
     * uses it (functions/adapters/redis/cluster.itest.ts), whose MONITOR counts everything on it.
     */
    redisClusterUrl: string;
  }
}

/**
 * Starts the integration tests' own backends: on ports the system reports free, never the defaults,
 * so a running `npm start` and the tests leave each other alone. A failed start keeps its state
 * folder, whose logs/ tell why.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stateDir = fileURLToPath(new URL(`../../.beacon/test-${process.pid}/`, import.meta.url));
  const [dynamodb, redis, kinesis, s3, eventbridge, ...clusterPorts] = await findFreePorts(11);
  if (
    dynamodb === undefined ||
    redis === undefined ||
    kinesis === undefined ||
    s3 === undefined ||
    eventbridge === undefined
  )
    throw new Error("no free ports");
  const [backendsOutcome, clusterOutcome] = await Promise.allSettled([
    startBackends({
      stateDir,
      ports: { dynamodb, redis, kinesis, s3 },
      kinesisEmulator: kinesisEmulatorFromEnv(),
      tableName: "beacon-test",
      streamName: "beacon-events-test",
      assetBucket: "beacon-assets-test",
      archiveBucket: "beacon-events-archive-test",
      notificationBus: { name: "beacon-notifications-test", port: eventbridge },
      log: (line) => console.log(`[backends] ${line}`),
    }),
    startRedisCluster({ nodes: clusterNodesOn(clusterPorts), stateDir }),
  ]);
  const stop = async () => {
    await Promise.all(
      [backendsOutcome, clusterOutcome].map((outcome) =>
        outcome.status === "fulfilled" ? outcome.value.stop() : undefined,
      ),
    );
  };
  if (backendsOutcome.status === "rejected") {
    await stop();
    throw backendsOutcome.reason;
  }
  if (clusterOutcome.status === "rejected") {
    await stop();
    throw clusterOutcome.reason;
  }
  project.provide("beaconEnv", backendsOutcome.value.env);
  project.provide("redisServerBinary", findRedisServerBinary());
  project.provide("redisClusterUrl", clusterOutcome.value.url);
  return async () => {
    await stop();
    rmSync(stateDir, { recursive: true, force: true });
  };
}

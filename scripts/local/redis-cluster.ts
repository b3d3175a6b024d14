import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import type { ChildService } from "./child-service.js";
import { startRedisServer } from "./redis-server.js";

/** The 16384 hash slots of Redis Cluster. */
const SLOT_COUNT = 16_384;
const JOIN_TIMEOUT_MS = 15_000;
const JOIN_POLL_MS = 100;

export interface RedisClusterNode {
  port: number;
  /** Where the nodes speak to each other; chosen explicitly, as port + 10000 may lie past 65535. */
  busPort: number;
}

/** Nodes on ports given in pairs: each node's client port, then its bus port. */
export function clusterNodesOn(ports: number[]): RedisClusterNode[] {
  const nodes: RedisClusterNode[] = [];
  for (let index = 0; index + 1 < ports.length; index += 2) {
    nodes.push({ port: ports[index] as number, busPort: ports[index + 1] as number });
  }
  return nodes;
}

export interface RedisCluster extends ChildService {
  /** The seed node's URL for makeRedisClient: cluster mode, as on AWS. */
  url: string;
}

/**
 * A throwaway Redis Cluster of masters only, as ElastiCache Serverless presents itself: each node
 * serves an equal share of the slots, and the cluster is ready once every node reports it whole.
 */
export async function startRedisCluster(options: {
  nodes: RedisClusterNode[];
  stateDir: string;
}): Promise<RedisCluster> {
  const { nodes, stateDir } = options;
  const outcomes = await Promise.allSettled(
    nodes.map(({ port, busPort }) => startRedisServer({ port, stateDir, clusterBusPort: busPort })),
  );
  const servers = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
  try {
    const failure = outcomes.find((outcome) => outcome.status === "rejected");
    if (failure) throw failure.reason;
    await joinCluster(nodes);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${nodes[0]?.port}?cluster=true`, stop };
}

/** Assigns each node its share of the slots, introduces them to the first, and waits for agreement. */
async function joinCluster(nodes: RedisClusterNode[]): Promise<void> {
  const clients = nodes.map(({ port }) => new Redis({ host: "127.0.0.1", port, maxRetriesPerRequest: 0 }));
  try {
    await Promise.all(
      clients.map((client, index) => {
        const first = Math.floor((SLOT_COUNT * index) / nodes.length);
        const last = Math.floor((SLOT_COUNT * (index + 1)) / nodes.length) - 1;
        return client.call("CLUSTER", "ADDSLOTSRANGE", first, last);
      }),
    );
    const [seed] = clients;
    for (const { port, busPort } of nodes.slice(1)) {
      await seed?.call("CLUSTER", "MEET", "127.0.0.1", port, busPort);
    }
    const deadline = Date.now() + JOIN_TIMEOUT_MS;
    let states: string[] = [];
    while (Date.now() < deadline) {
      states = await Promise.all(clients.map((client) => clusterState(client, nodes.length)));
      if (states.every((state) => state === "ok")) return;
      await sleep(JOIN_POLL_MS);
    }
    throw new Error(
      `the Redis Cluster on ports ${nodes.map(({ port }) => port).join(", ")} did not form within ${JOIN_TIMEOUT_MS} ms (${states.join("; ")})`,
    );
  } finally {
    for (const client of clients) client.disconnect();
  }
}

/** "ok" once the node knows every node and serves all slots; otherwise what it reports. */
async function clusterState(client: Redis, nodeCount: number): Promise<string> {
  const info = String(await client.call("CLUSTER", "INFO"));
  const field = (name: string) => info.match(new RegExp(`^${name}:(\\S+)`, "m"))?.[1];
  const state = `cluster_state:${field("cluster_state")} known_nodes:${field("cluster_known_nodes")}`;
  return field("cluster_state") === "ok" && Number(field("cluster_known_nodes")) === nodeCount ? "ok" : state;
}

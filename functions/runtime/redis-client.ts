import { Cluster, Redis } from "ioredis";

export interface RedisClientOptions {
  /** redis://host:port locally, rediss://host:port (TLS) for ElastiCache; ?cluster=true for cluster mode. */
  url: string;
  /** A cache answer later than this is no answer: the handler falls back to DynamoDB. */
  commandTimeoutMs: number;
}

/**
 * Built once per container. Commands queue only while the first connection is being made; during an
 * outage they fail at once (see isCacheUsable in adapters/redis) so a heartbeat pays no timeout before
 * falling back, and the client keeps reconnecting in the background so the fast path returns by itself.
 */
export function makeRedisClient({ url, commandTimeoutMs }: RedisClientOptions): Redis | Cluster {
  const parsed = new URL(url);
  const tls = parsed.protocol === "rediss:" ? {} : undefined;
  const common = {
    commandTimeout: commandTimeoutMs,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, 2_000),
    tls,
    // Not auto-pipelined: a command must be on the wire when it is sent, for a process that goes busy (parsing a
    // herd's first heartbeats) to find its answer there at the deadline (see adapters/redis/deadline.ts); ioredis
    // holds an auto-pipelined command until the event loop's next check phase, after the deadline has run.
    enableAutoPipelining: false,
  };
  if (parsed.searchParams.get("cluster") === "true") {
    return new Cluster([{ host: parsed.hostname, port: Number(parsed.port || 6379) }], {
      // ElastiCache hands out TLS certificates for its DNS names; keep them instead of resolved IPs.
      dnsLookup: (address, callback) => callback(null, address),
      clusterRetryStrategy: common.retryStrategy,
      redisOptions: common,
    });
  }
  return new Redis(url.replace(/\?.*$/, ""), common);
}

/**
 * A function's cache client. Each function reports an unreachable cache where it meets it (per request as
 * CacheFallbacks, per sweeper run as rollouts held back); the client's own error events only repeat it, and
 * would each be printed as unhandled without a listener.
 */
export function makeCacheClient(options: RedisClientOptions): Redis | Cluster {
  const redis = makeRedisClient(options);
  redis.on("error", () => {});
  return redis;
}

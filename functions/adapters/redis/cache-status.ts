import type { Cluster, Redis } from "ioredis";

/** Statuses in which a command can still be answered soon; in any other the client is between reconnects. */
const USABLE_STATUSES = new Set(["ready", "connect", "connecting", "wait"]);

/** False while the server is known to be down, so a caller falls back at once instead of waiting. */
export const isCacheUsable = (client: Redis | Cluster): boolean => USABLE_STATUSES.has(client.status);

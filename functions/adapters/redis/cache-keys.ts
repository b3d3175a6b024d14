/**
 * Every key of a tenant carries the tenant as its hash tag, so one heartbeat's keys share a cluster
 * slot and one script can touch them all (ElastiCache Serverless runs in cluster mode).
 */
export const CacheKeys = {
  tag: (tenant: string) => `{t:${tenant}}`,
  agent: (tenant: string, agentId: string) => `{t:${tenant}}:agent:${agentId}`,
  manifests: (tenant: string) => `{t:${tenant}}:manifests`,
  classes: (tenant: string) => `{t:${tenant}}:classes`,
  classIndexPrefix: (tenant: string) => `{t:${tenant}}:class-seen:`,
  revokedSerials: (tenant: string) => `{t:${tenant}}:revoked`,
  heartbeatsInMinute: (tenant: string, epochMinute: number) => `{t:${tenant}}:heartbeats:${epochMinute}`,
  /** Present while operations may be queued for the agent; its value is a version, bumped on each queueing. */
  pendingOperations: (tenant: string, agentId: string) => `{t:${tenant}}:pending:${agentId}`,
  /** The class's flow policy (fields target, accepted, ackTimeoutMs; only loaded when it has none). */
  classFlow: (tenant: string, className: string) => `{t:${tenant}}:class-flow:${className}`,
  classFlowPrefix: (tenant: string) => `{t:${tenant}}:class-flow:`,
  /** Present while a catch-up sent to the agent holds off the next one; its value is the flow sent. */
  catchUp: (tenant: string, agentId: string) => `{t:${tenant}}:catch-up:${agentId}`,
  catchUpPrefix: (tenant: string) => `{t:${tenant}}:catch-up:`,
} as const;

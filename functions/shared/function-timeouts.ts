/**
 * How long each function may run, in seconds. The CDK app deploys the functions with these timeouts, and the
 * local stack gives each invocation the same time, so a handler that reads its remaining time (the sweeper
 * stops starting rollout looks before its end) behaves alike in both.
 */
/**
 * How often the sweeper runs: its EventBridge schedule on AWS, the local stack's timer unless
 * BEACON_SWEEPER_INTERVAL_SECONDS says otherwise. A rollout's batch starts, and an agent of it settles, only at a run.
 */
export const SWEEPER_INTERVAL_SECONDS = 60;

export const FunctionTimeouts = {
  agentApi: 10,
  /**
   * Asset downloads through the REST API that streams: past its first 10 MB API Gateway streams 2 MB/s, so an
   * asset of the largest size (100 MiB) takes some 50 s; the rest is for agents on slower links.
   */
  agentAssetStream: 180,
  consoleApi: 10,
  sweeper: 50,
  /** A batch of up to 10,000 records, written to the archive as a few objects per tenant. */
  streamConsumer: 60,
  /** Like the sweeper's, under its schedule's minute. */
  webhookDispatcher: 50,
} as const;

/**
 * How soon the agent API answers an agent, and each backend's share of that time. MiNiFi Java gives up on a
 * request after 5 s (its read timeout) and counts it failed; the answer has to reach it well before, over the
 * network and through the load balancer or API Gateway, whatever backend hangs. So no backend is waited for
 * past its share: what it could not take is held (the stream's events) or left for the next heartbeat to
 * complete (the registry's writes), never waited for longer.
 */
export const AgentAnswerBudget = {
  /** The whole, from when a request's body is in to its answer: 3 s short of MiNiFi Java's read timeout. */
  answerMs: 2_000,
  /**
   * DynamoDB: a request's calls still under way this long after it began are given up. A heartbeat so cut
   * short is answered with no operations (the next one finds the same state and completes it).
   */
  storageMs: 1_500,
  /**
   * DynamoDB's share against DynamoDB Local, which on a machine shared with a test suite or a load generator
   * pauses for seconds where DynamoDB answers in milliseconds (as the clients' emulator timeouts allow): cutting
   * its calls at the AWS share would answer first sightings empty for the machine's load, not a fault. It
   * still answers within MiNiFi Java's 5 s.
   */
  emulatedStorageMs: 3_500,
  /**
   * The stream: its put is waited for until this long after the request began at most; then the request is
   * answered and the put goes on, its events held in the cache's buffer should it fail.
   */
  streamMs: 1_000,
  /**
   * The cache, per call. A request stops calling the cache after its first failure (guardedCache), so a cache
   * that hangs costs a request this once; a slow call leaves the rest of the storage share for DynamoDB.
   */
  cacheCallMs: 150,
  /**
   * Kept of the invocation's own time (its timeout, 10 s) to answer in, should the invocation have less left
   * than the budget: a request that began late in a long invocation is answered before it is cut off.
   */
  invocationMarginMs: 1_000,
} as const;

/** When a request's backends stop being waited for (epoch milliseconds). */
export interface AnswerDeadlines {
  /** DynamoDB calls still under way are given up. */
  storageBy: number;
  /** The stream's put is no longer waited for. */
  streamBy: number;
}

/**
 * The deadlines of a request that began at `startedAt`, in an invocation that ends at `invocationDeadline`
 * (both epoch milliseconds): each backend's share from the start (DynamoDB's `storageMs`), and none past the
 * invocation's margin.
 */
export function answerDeadlines(
  startedAt: number,
  invocationDeadline: number,
  storageMs: number = AgentAnswerBudget.storageMs,
): AnswerDeadlines {
  const latest = invocationDeadline - AgentAnswerBudget.invocationMarginMs;
  return {
    storageBy: Math.min(startedAt + storageMs, latest),
    streamBy: Math.min(startedAt + AgentAnswerBudget.streamMs, latest),
  };
}

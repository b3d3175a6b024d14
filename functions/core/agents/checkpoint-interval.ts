/**
 * How far an agent's checkpoint interval strays from the configured one, either way, as a share of it: a
 * fleet that started together spreads its registry checkpoints over this much of the interval at first,
 * and ever more after, each agent keeping its own steady period.
 */
export const CHECKPOINT_JITTER = 0.2;

/**
 * The agent's own checkpoint interval: the configured one moved by an offset its id fixes, within
 * ±CHECKPOINT_JITTER of it. The same id always gets the same interval, whichever container computes it.
 */
export function checkpointIntervalOf(agentId: string, intervalMs: number): number {
  return Math.round(intervalMs * (1 + CHECKPOINT_JITTER * (2 * fractionOf(agentId) - 1)));
}

/** The longest interval any agent gets: how stale a last-seen time read from the registry may be. */
export const longestCheckpointIntervalMs = (intervalMs: number): number =>
  Math.ceil(intervalMs * (1 + CHECKPOINT_JITTER));

/**
 * The id hashed to a fraction in [0, 1): FNV-1a over its UTF-16 code units, then MurmurHash3's finalizer,
 * so that ids differing only in their last character (agent-0001, agent-0002) land far apart.
 */
export function fractionOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return (hash >>> 0) / 2 ** 32;
}

/** An agent a request passed over, and why. */
export interface SkippedAgent {
  agentId: string;
  reason: string;
}

/** The agents a request passed over: every one counted, the first ones named. */
export interface SkippedAgents {
  count: number;
  listed: SkippedAgent[];
}

export const noneSkipped: SkippedAgents = { count: 0, listed: [] };

/** The skipped agents with `more` counted, and named while fewer than `maxListed` are. */
export const withSkipped = (
  skipped: SkippedAgents,
  more: readonly SkippedAgent[],
  maxListed: number,
): SkippedAgents => ({
  count: skipped.count + more.length,
  listed: [...skipped.listed, ...more.slice(0, Math.max(0, maxListed - skipped.listed.length))],
});

/** Whether every skipped agent is named. */
export const allListed = (skipped: SkippedAgents): boolean => skipped.count === skipped.listed.length;

/** The skipped agents as an answer shows them: those named, and how many there were. */
export const skippedView = (skipped: SkippedAgents) => ({
  skipped: skipped.listed,
  skippedCount: skipped.count,
});

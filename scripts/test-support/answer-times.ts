import { AgentAnswerBudget } from "../../functions/core/agent-requests/answer-budget.js";

/**
 * What a loaded test machine adds to an answer on top of the budget: the test's own TLS client and the local
 * gateway share two cores with the emulators and other test files. Answers that waited for a frozen backend
 * as they did before the budget (8-9 s for the stream) exceed it several times over.
 */
const LOADED_MACHINE_ALLOWANCE_MS = 1_000;

/** The longest a test lets an agent wait for its answer: the agent answer budget and the loaded machine's share. */
export const ANSWER_LIMIT_MS = AgentAnswerBudget.answerMs + LOADED_MACHINE_ALLOWANCE_MS;

/** p50, p99 and the longest of the answer times, in whole milliseconds, for the log. */
export function answerTimeSummary(answerTimes: number[]) {
  const sorted = [...answerTimes].sort((a, b) => a - b);
  const at = (quantile: number) => Math.round(sorted[Math.ceil(quantile * sorted.length) - 1] ?? Number.NaN);
  return { answers: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1) };
}

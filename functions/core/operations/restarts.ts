/**
 * Which operations make an agent restart, and how long Beacon holds its silence for the restart
 * (REAL-AGENTS.md, §2). Plain values in and out.
 *
 * - UPDATE PROPERTIES restarts both agents: MiNiFi Java writes `bootstrap.conf`, restarts and acknowledges
 *   after the restart (sending no heartbeat meanwhile); MiNiFi C++ acknowledges, then restarts.
 * - RESTART restarts MiNiFi C++ (it stops, acknowledges, starts again). MiNiFi Java has no RESTART: its
 *   manifest does not list it, so it is never delivered to a Java agent, and every RESTART delivered is a
 *   C++ agent's, whatever Beacon knows of its type on the heartbeat.
 */
const RESTARTING_OPERATIONS = new Set(["UPDATE PROPERTIES", "RESTART"]);

export const restartsAgent = (operation: { operation: string; operand?: string }): boolean =>
  RESTARTING_OPERATIONS.has(`${operation.operation} ${operation.operand ?? ""}`.trim());

/**
 * When a reply's restart should be over: the latest acknowledgement deadline of the operations it delivers
 * that restart the agent; undefined when none does. Java acknowledges only once restarted, so a restart
 * that outlasts it fails the operation (timed out) anyway: from then on the agent's silence counts as any
 * other, and it is announced offline once it lasts three heartbeat periods more.
 */
export function restartDeadlineOf(
  delivered: readonly { operation: string; operand?: string; timeoutAt: number }[],
): number | undefined {
  const deadlines = delivered.filter(restartsAgent).map((operation) => operation.timeoutAt);
  return deadlines.length > 0 ? Math.max(...deadlines) : undefined;
}

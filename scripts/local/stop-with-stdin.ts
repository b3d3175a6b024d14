/**
 * Set to 1 by a process that starts the local stack for itself (a test worker, the soak) and holds a pipe on the
 * stack's stdin: the stack then stops when that pipe closes.
 */
export const STOP_WHEN_STDIN_CLOSES_ENV_NAME = "BEACON_STOP_WHEN_STDIN_CLOSES";

/**
 * Calls `stop` once stdin closes, when the environment asks for it. The kernel closes a pipe however the process
 * holding its other end ends (returns, crashes, is killed), so a stack a test worker started ends with the
 * worker, even one killed before its hooks could stop it. Without the variable, stdin is left alone: Ctrl-D in a
 * terminal stops nothing.
 */
export function stopWhenStdinCloses(env: NodeJS.ProcessEnv, stop: () => void): void {
  if (env[STOP_WHEN_STDIN_CLOSES_ENV_NAME] !== "1") return;
  process.stdin.once("end", stop);
  // Whatever is written is read and passed over, so that the end is seen.
  process.stdin.resume();
}

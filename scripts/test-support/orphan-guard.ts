/**
 * A test worker outlives its vitest when vitest is killed by a signal it cannot pass on (a CI job's timeout, a
 * SIGTERM to its process alone): the worker waits for answers that never come, and keeps the backends it
 * started (a file's own Redis, a local stack) running, each watchdog holding on to its open pipe. When the
 * channel to its vitest closes, the worker ends, and its backends' watchdogs stop them (child-service.ts). By a
 * signal to itself: vitest replaces a worker's process.exit with one that throws.
 */
if (process.send !== undefined) {
  process.once("disconnect", () => {
    console.error("vitest is gone: this test worker ends, and the backends it started with it");
    process.kill(process.pid, "SIGTERM");
  });
}

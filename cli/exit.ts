/**
 * What `beacon` exits with, for scripts: the API refused (its message on stderr), the command was misused (or a
 * fleet folder is broken), what a command waited for (`bundles wait`) did not come in the time it was given, or
 * `beacon diff` found changes to make; or it was interrupted (Ctrl-C, 128 + SIGINT as shells say) once it had
 * undone what it had begun.
 */
export const ExitCode = { ok: 0, refused: 1, usage: 2, timedOut: 3, changes: 4, interrupted: 130 } as const;

/** A command given wrongly (an unknown context, a bad option value): exit code 2, before any request. */
export class UsageError extends Error {}

/** Ctrl-C, once the command has undone what it began (an upload aborted): exit code 130, as a shell's. */
export class InterruptedError extends Error {}

/**
 * What `beacon` exits with, for scripts: the API refused (its message on stderr), the command was misused (or a
 * fleet folder is broken), or `beacon diff` found changes to make.
 */
export const ExitCode = { ok: 0, refused: 1, usage: 2, changes: 3 } as const;

/** A command given wrongly (an unknown context, a bad option value): exit code 2, before any request. */
export class UsageError extends Error {}

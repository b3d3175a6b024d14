/**
 * Waits for a condition, checking every `intervalMs` (half a second unless told): resolves to the first value
 * `probe` answers other than undefined, and fails naming `what` (read when it fails, so it may tell what was
 * seen) once `timeoutMs` has passed without one.
 */
export async function until<T>(
  what: string | (() => string),
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
  intervalMs = 500,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Waits until `check` holds, as `until` does. */
export async function untilTrue(
  what: string | (() => string),
  check: () => boolean | Promise<boolean>,
  timeoutMs?: number,
): Promise<void> {
  await until(what, async () => ((await check()) ? true : undefined), timeoutMs);
}

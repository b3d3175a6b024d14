import { existsSync } from "node:fs";

/**
 * Debian's Chromium, which `node scripts/build/setup.mjs` installs (apt-get install chromium) and Playwright
 * drives without ever downloading a browser of its own; BEACON_CHROMIUM names another build of it.
 */
export function chromiumExecutable(): string {
  const executable = process.env.BEACON_CHROMIUM ?? "/usr/bin/chromium";
  if (!existsSync(executable)) {
    throw new Error(
      `no Chromium at ${executable}: node scripts/build/setup.mjs installs it as root (apt-get install chromium)`,
    );
  }
  return executable;
}

import { fileURLToPath } from "node:url";

/**
 * Where `npm start` keeps the emulators' data and every log: .beacon/local unless BEACON_LOCAL_DIR names
 * another folder, so that a second stack of the same checkout (the README's test runs one) leaves a
 * running one's files alone. The load tests read the functions' metrics from there.
 */
export const localDir = (env: Readonly<Record<string, string | undefined>> = process.env): string =>
  env.BEACON_LOCAL_DIR || fileURLToPath(new URL("../../.beacon/local/", import.meta.url));

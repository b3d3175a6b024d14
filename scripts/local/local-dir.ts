import { fileURLToPath } from "node:url";

/**
 * Where `npm start` keeps the emulators' data and every log: .beacon/local unless BEACON_LOCAL_DIR names
 * another folder, so that a second stack of the same checkout (the README's test runs one) leaves a
 * running one's files alone. The load tests read the functions' metrics from there.
 */
/** The variable that names another local folder. */
export const LOCAL_DIR_ENV_NAME = "BEACON_LOCAL_DIR";

export const localDir = (env: Readonly<Record<string, string | undefined>> = process.env): string =>
  env[LOCAL_DIR_ENV_NAME] || fileURLToPath(new URL("../../.beacon/local/", import.meta.url));

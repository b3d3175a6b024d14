import { fileURLToPath } from "node:url";

/** The repository root: functions are bundled from it and its package-lock.json pins what they bundle. */
export const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url));

import { createHash } from "node:crypto";

/**
 * A class's resource set: the assets its agents hold, each under its name in a folder of their asset
 * directory, pushed with SYNC RESOURCE as a whole (agents delete what it does not list).
 */

/**
 * Where in the agent's asset directory a resource goes: "" for the directory itself, or relative folders
 * of the characters names take, none starting with a dot. MiNiFi Java (2.4 and later) refuses a path that
 * starts with a dot or holds `..`, C++ one that leaves its asset directory.
 */
const RESOURCE_PATH_PATTERN = /^([A-Za-z0-9_-][A-Za-z0-9._-]{0,127})(\/[A-Za-z0-9_-][A-Za-z0-9._-]{0,127})*$/;
export const isResourcePath = (value: string): boolean =>
  value === "" || (value.length <= 256 && RESOURCE_PATH_PATTERN.test(value) && !value.includes(".."));

/** One asset of a class's resource set: where agents keep it, under its name. */
export interface ResourceEntry {
  assetId: string;
  /** The asset's name: the file name on the agent (`resourceName`). */
  name: string;
  /** The folder in the agent's asset directory (`resourcePath`), "" for the directory itself. */
  path: string;
}

/**
 * The assets a class's agents hold. SYNC RESOURCE carries the whole set (agents delete what it does not
 * list), with a digest of it that agents report back in their heartbeats as `resourceInfo.hash`.
 */
export interface ResourceSet {
  className: string;
  /** Sorted by path, then name. */
  entries: ResourceEntry[];
  /** SHA-256 of the set (ids, names, paths), lower-case hex: the SYNC RESOURCE's `globalHash.digest`. */
  digest: string;
  updatedAt: number;
  updatedBy: string;
}

/**
 * Most assets one class's set holds: replacing a set marks each asset it adds or drops in one DynamoDB
 * transaction with the set itself, and a transaction takes 100 items.
 */
export const MAX_RESOURCE_SET_ASSETS = 40;

/** The digest algorithm of assets and sets, as MiNiFi Java names it (it digests a file to compare). */
export const DIGEST_ALGORITHM = "SHA-256";

const byLocation = (a: ResourceEntry, b: ResourceEntry) =>
  a.path === b.path ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.path < b.path ? -1 : 1;

/** The entries in the set's order, with the digest that names exactly that set. */
export function resourceSetOf(entries: ResourceEntry[]): Pick<ResourceSet, "entries" | "digest"> {
  const sorted = [...entries].sort(byLocation);
  const canonical = JSON.stringify(sorted.map(({ assetId, name, path }) => [assetId, path, name]));
  return { entries: sorted, digest: createHash("sha256").update(canonical).digest("hex") };
}

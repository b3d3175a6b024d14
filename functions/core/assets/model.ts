/**
 * A tenant's assets: files agents keep beside their flows (models, lookup tables, certificates), which a
 * flow names as `@{asset-id:<id>}`. An asset is its bytes: its id is their SHA-256, so it never changes,
 * and new bytes are a new asset with a new id. Agents get assets through SYNC RESOURCE (a class's resource
 * set, see resources.ts) or UPDATE ASSET (one file), and download them over mutual TLS from the agent API.
 */

/**
 * Largest asset Beacon takes, and serves. Uploads and downloads both go through a synchronous Lambda
 * invocation, whose request and response are each capped at 6 MB, and API Gateway passes binary bodies
 * base64-encoded (a third larger): 4 MiB is 5.6 MB encoded, with room left for the event around it.
 */
export const MAX_ASSET_BYTES = 4 * 1024 * 1024;

/** Lower-case hex SHA-256 of the bytes: the asset's id, the `resourceId` agents get and flows name. */
const ASSET_ID_PATTERN = /^[0-9a-f]{64}$/;
export const isAssetId = (value: string): boolean => ASSET_ID_PATTERN.test(value);

/**
 * An asset's name is the file name agents write it under, so it must be safe as one on every agent: letters,
 * digits, `.`, `_` and `-`, starting with a letter or digit (no `/`, no `..`, no NUL, no hidden file).
 */
const ASSET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const isAssetName = (value: string): boolean =>
  ASSET_NAME_PATTERN.test(value) && !value.includes("..");

export interface AssetRecord {
  assetId: string;
  name: string;
  sizeBytes: number;
  /** As the upload declared it; downloads carry it. */
  contentType: string;
  createdAt: number;
  /** Subject of the token that uploaded it. */
  createdBy: string;
  /** The classes whose resource set holds it: it cannot be deleted while one does. */
  usedBy?: string[];
}

/** A flow's references to assets, `@{asset-id:<id>}`, as MiNiFi Java (2.5 and later) and C++ (0.99.2) read them. */
const ASSET_REFERENCE = /@\{asset-id:([^}]*)\}/g;

/** The asset ids a flow document names, sorted and without repeats. */
export function assetReferencesIn(text: string): string[] {
  return [...new Set([...text.matchAll(ASSET_REFERENCE)].map((match) => (match[1] ?? "").trim()))].sort();
}

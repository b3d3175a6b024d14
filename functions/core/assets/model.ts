/**
 * A tenant's assets: files agents keep beside their flows (models, lookup tables, certificates), which a
 * flow names as `@{asset-id:<id>}`. An asset is its bytes: its id is their SHA-256, so it never changes,
 * and new bytes are a new asset with a new id. Agents get assets through SYNC RESOURCE (a class's resource
 * set, see resources.ts) or UPDATE ASSET (one file), and download them over mutual TLS from the agent API.
 */

/**
 * Largest asset Beacon takes: the incumbent's resource manager takes 100 MB (NARs, models, certificate
 * bundles), and 100 MiB holds that with room. Such an asset never passes through a Lambda invocation: it is
 * uploaded straight to S3 in parts (`POST /assets/uploads`), and checking it at completion reads it once,
 * streamed, which at S3's per-stream rate stays well inside API Gateway's 29 s integration timeout.
 */
export const MAX_ASSET_BYTES = 100 * 1024 * 1024;

/**
 * Largest asset the one-request upload (`POST /assets`) takes, its bytes as the request's body: a synchronous
 * Lambda invocation's request is capped at 6 MB, and API Gateway passes binary bodies base64-encoded (a third
 * larger): 4 MiB is 5.6 MB encoded, with room left for the event around it. Larger assets go in parts.
 */
export const MAX_INLINE_ASSET_BYTES = 4 * 1024 * 1024;

/**
 * Each part of an upload but the last: S3 takes parts of 5 MiB and more (the last may be smaller) and at most
 * 10,000 of them; 8 MiB makes a 100 MiB asset 13 parts, each one HTTP PUT a browser or curl retries alone.
 */
export const ASSET_UPLOAD_PART_BYTES = 8 * 1024 * 1024;

/** How many parts an upload of `sizeBytes` is sent in. */
export const uploadPartCount = (sizeBytes: number): number => Math.ceil(sizeBytes / ASSET_UPLOAD_PART_BYTES);

/** How many bytes part `partNumber` (from 1) of an upload of `sizeBytes` holds. */
export const uploadPartBytes = (sizeBytes: number, partNumber: number): number =>
  Math.min(ASSET_UPLOAD_PART_BYTES, sizeBytes - (partNumber - 1) * ASSET_UPLOAD_PART_BYTES);

/**
 * Where uploads in parts are staged in the asset bucket, under `<prefix>/<tenant>/<uploadId>/`, apart from the
 * tenants' assets until their bytes are checked; the bucket's lifecycle removes what an abandoned one left.
 */
export const ASSET_UPLOADS_PREFIX = "asset-uploads";

/** How long the presigned part URLs an upload starts with stay good, and the upload with them. */
export const ASSET_UPLOAD_TTL_SECONDS = 60 * 60;

/**
 * How long a link signed at `now` works: `wantedSeconds`, or until the credentials that sign it expire when that is
 * sooner, since a presigned link stops working with its signer's session (a function's role session on AWS),
 * whatever lifetime it states. Never under a second: a link made is a link the caller may try.
 */
export function signedLinkSeconds(
  now: number,
  wantedSeconds: number,
  credentialsExpireAt: number | undefined,
): number {
  if (credentialsExpireAt === undefined) return wantedSeconds;
  return Math.max(1, Math.min(wantedSeconds, Math.floor((credentialsExpireAt - now) / 1000)));
}

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

/**
 * An upload in parts as it was started: what the caller declared, which completion holds the bytes to. Its
 * bytes are staged apart from the tenant's assets until they are checked; only then is the asset recorded.
 */
export interface AssetUploadRecord {
  uploadId: string;
  name: string;
  sizeBytes: number;
  /** The SHA-256 the caller declared: the asset's id once the bytes are checked to have it. */
  sha256: string;
  contentType: string;
  createdAt: number;
  createdBy: string;
}

/** Upload ids are Beacon's own (a UUID), never the store's. */
const UPLOAD_ID_PATTERN = /^[0-9A-Za-z-]{1,64}$/;
export const isUploadId = (value: string): boolean => UPLOAD_ID_PATTERN.test(value);

/** A flow's references to assets, `@{asset-id:<id>}`, as MiNiFi Java (2.5 and later) and C++ (0.99.2) read them. */
const ASSET_REFERENCE = /@\{asset-id:([^}]*)\}/g;

/** The asset ids a flow document names, sorted and without repeats. */
export function assetReferencesIn(text: string): string[] {
  return [...new Set([...text.matchAll(ASSET_REFERENCE)].map((match) => (match[1] ?? "").trim()))].sort();
}

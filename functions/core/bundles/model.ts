import { BeaconError } from "../errors.js";

/**
 * The largest debug bundle Beacon keeps: what the incumbent C2 server takes (16 MiB). The streaming intake
 * counts the bundle's bytes as they arrive and refuses it past this; an ingress that buffers the request in a
 * Lambda invocation takes less (its own limit, stated where it is set).
 */
export const DEBUG_BUNDLE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The largest bundle the HTTP API ingress takes: API Gateway hands the body to a synchronous Lambda invocation,
 * which carries at most 6 MB (6,291,456 bytes), the form base64-encoded (a third more) with the request's
 * headers and certificate. 4.5 MB of bundle is what fits with room to spare; the streaming intake takes
 * DEBUG_BUNDLE_MAX_BYTES.
 */
export const HTTP_API_DEBUG_BUNDLE_MAX_BYTES = 4_500_000;

/** Days the console serves a bundle unless the deployment sets others; the bucket deletes it after. */
export const DEFAULT_DEBUG_BUNDLE_DAYS = 1;

/**
 * The prefix of every bundle in the asset bucket, tenants' below it: only the intake puts and only the console
 * reads there, and the bucket's lifecycle deletes what is under it after the retention (infra/lib).
 */
export const DEBUG_BUNDLES_PREFIX = "debug-bundles";

/** The one multipart part both agents send the bundle in (`debug.tar.gz`, a gzip tar). */
export const DEBUG_BUNDLE_PART = "file";

/** What a kept bundle is: the gzip tar the agent made. */
export const DEBUG_BUNDLE_CONTENT_TYPE = "application/gzip";

/** One kept bundle: the TRANSFER DEBUG operation it answers, its size, and until when it is served. */
export interface DebugBundle {
  tenant: string;
  operationId: string;
  agentId: string;
  /** Names this upload's object, so that an upload that lost a race removes its own bytes, never the winner's. */
  uploadId: string;
  bytes: number;
  storedAt: number;
  expiresAt: number;
}

/** The refusal of an upload to an address no TRANSFER DEBUG operation of the caller's awaits. */
export const debugBundleNotExpected = (): BeaconError =>
  new BeaconError("not_found", "No debug bundle is expected at this address");

/** The refusal of a bundle past `limit` bytes, naming the limit, whichever ingress counted it. */
export const debugBundleTooLarge = (limit: number): BeaconError =>
  new BeaconError(
    "debug_bundle_too_large",
    `A debug bundle may hold at most ${limit} bytes (${(limit / 1024 / 1024).toFixed(1)} MiB) through this ingress` +
      (limit < DEBUG_BUNDLE_MAX_BYTES
        ? `; the agent service's ingress takes up to ${DEBUG_BUNDLE_MAX_BYTES} bytes`
        : ""),
  );

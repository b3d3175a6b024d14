import { gunzipSync } from "node:zlib";
import { BeaconError, type ErrorCode, isBeaconError } from "../core/errors.js";
import type { JsonObject } from "../core/json.js";
import { RecentlyUsed } from "../core/recently-used.js";

export interface BodyLimits {
  /** Largest body accepted after inflation; a gzip bomb stops here, not at the memory limit. */
  maxInflatedBytes: number;
  /** Deepest nesting of arrays and objects; the deepest real manifest nests about a dozen levels. */
  maxJsonDepth: number;
}

/** The one table from a domain failure to an HTTP status. */
const STATUS_BY_CODE: Record<ErrorCode, number> = {
  malformed_json: 400,
  invalid_payload: 400,
  payload_too_large: 413,
  payload_too_deep: 400,
  unsupported_content_encoding: 415,
  missing_client_certificate: 401,
  invalid_client_certificate: 403,
  certificate_revoked: 403,
  tenant_not_bound_to_ca: 403,
  identity_mismatch: 403,
  agent_id_not_in_certificate: 403,
  route_not_found: 404,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  result_expired: 410,
  invalid_request: 400,
  invalid_csr: 400,
  certificate_authority_unavailable: 503,
  operation_not_supported: 409,
  operation_not_queued: 409,
  outside_window: 409,
  confirmation_required: 400,
  rollout_in_progress: 409,
  rollout_state: 409,
  rollout_conflict: 409,
  flow_incompatible: 409,
  cache_unavailable: 503,
  unsupported_media_type: 415,
  asset_exists: 409,
  asset_upload_incomplete: 409,
  // The bytes uploaded are not those declared (size or SHA-256): the upload is removed, and nothing stored.
  asset_upload_mismatch: 422,
  group_exists: 409,
  asset_in_use: 409,
  resource_set_conflict: 409,
  subscription_limit: 409,
  parameter_limit: 409,
  parameter_value_missing: 409,
  parameters_not_ready: 409,
  secret_unavailable: 502,
  // The function that posts a webhook test for the console failed or did not answer: a gateway's failure.
  webhook_tester_unavailable: 502,
  debug_bundle_too_large: 413,
  debug_bundle_exists: 409,
  debug_bundle_not_expected: 409,
};

export interface JsonResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  /** The body is binary, base64-encoded, as Lambda's proxy integrations carry binary bodies. */
  isBase64Encoded?: boolean;
}

export const jsonResponse = (statusCode: number, body: unknown): JsonResponse => ({
  statusCode,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** A failure as the caller sees it: a stable code and a message, never a stack trace. */
export function errorResponse(error: unknown): JsonResponse {
  if (isBeaconError(error)) {
    const { code, message, details } = error;
    return jsonResponse(STATUS_BY_CODE[code], {
      error: details ? { code, message, details } : { code, message },
    });
  }
  return jsonResponse(500, {
    error: { code: "internal_error", message: "Beacon could not handle the request" },
  });
}

export const isServerError = (response: JsonResponse): boolean => response.statusCode >= 500;

/** The request body as text: base64 undone, gzip inflated under the cap. */
export function decodeBody(
  body: string | undefined,
  isBase64Encoded: boolean,
  contentEncoding: string | undefined,
  limits: BodyLimits,
): string {
  // A text body sent as it is (an agent's JSON through the HTTP API) is its text already: no bytes to decode.
  if (!isBase64Encoded && encodingOf(contentEncoding) === "identity") {
    const text = body ?? "";
    assertWithin(Buffer.byteLength(text), limits.maxInflatedBytes);
    return text;
  }
  return decodeBodyBytes(body, isBase64Encoded, contentEncoding, limits).toString("utf8");
}

/** The request body's bytes: base64 undone, gzip inflated under the cap. */
export function decodeBodyBytes(
  body: string | undefined,
  isBase64Encoded: boolean,
  contentEncoding: string | undefined,
  limits: Pick<BodyLimits, "maxInflatedBytes">,
): Buffer {
  return inflateBody(Buffer.from(body ?? "", isBase64Encoded ? "base64" : "utf8"), contentEncoding, limits);
}

/** The request body's bytes as they were sent, gzip inflated under the cap. */
export function inflateBody(
  raw: Buffer,
  contentEncoding: string | undefined,
  limits: Pick<BodyLimits, "maxInflatedBytes">,
): Buffer {
  const encoding = encodingOf(contentEncoding);
  let decoded: Buffer;
  if (encoding === "identity") {
    decoded = raw;
  } else if (encoding === "gzip" || encoding === "x-gzip") {
    decoded = inflate(raw, limits.maxInflatedBytes);
  } else {
    throw new BeaconError(
      "unsupported_content_encoding",
      `Content-Encoding ${encoding} is not supported; use gzip`,
    );
  }
  assertWithin(decoded.length, limits.maxInflatedBytes);
  return decoded;
}

const encodingOf = (contentEncoding: string | undefined) =>
  contentEncoding?.trim().toLowerCase() || "identity";

function assertWithin(bytes: number, maxBytes: number): void {
  if (bytes > maxBytes)
    throw new BeaconError("payload_too_large", `The body is larger than ${maxBytes} bytes`);
}

/** JSON compresses about eightfold: an output chunk that size mostly takes the whole body at once. */
const EXPECTED_INFLATION = 8;
const MIN_INFLATE_CHUNK = 16 * 1024;
const MAX_INFLATE_CHUNK = 1024 * 1024;

/**
 * zlib writes its output in chunks that it then copies into one buffer: a C++ agent's first heartbeat
 * (~400 kB of JSON) took 25 chunks of the default 16 kB and cost about half as much again as one chunk.
 */
const inflateChunkOf = (compressed: Buffer) =>
  Math.min(Math.max(compressed.length * EXPECTED_INFLATION, MIN_INFLATE_CHUNK), MAX_INFLATE_CHUNK);

function inflate(compressed: Buffer, maxBytes: number): Buffer {
  try {
    // maxOutputLength makes zlib stop as soon as the output passes the cap, so memory stays bounded.
    return gunzipSync(compressed, {
      maxOutputLength: maxBytes,
      chunkSize: inflateChunkOf(compressed),
    });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new BeaconError("payload_too_large", `The body inflates past ${maxBytes} bytes`);
    }
    throw new BeaconError("malformed_json", "The body is not valid gzip");
  }
}

/** Parses a JSON object after checking its nesting without recursion, so no input can exhaust the stack. */
export function parseJsonObject(text: string, limits: BodyLimits): JsonObject {
  scanJson(new StringUnits(text), limits.maxJsonDepth, [], () => undefined);
  return jsonObjectOf(text);
}

function jsonObjectOf(text: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BeaconError("malformed_json", "The body is not valid JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new BeaconError("invalid_payload", "The body must be a JSON object");
  }
  return parsed as JsonObject;
}

/** A value at the path, kept parsed and frozen, with the bytes it was parsed from. */
interface KeptValue {
  bytes: Buffer;
  value: unknown;
}

/**
 * Parses JSON objects (as parseJsonObject, from their UTF-8 bytes) whose value at `path`, an object or an array,
 * often recurs byte for byte: a build's manifest bundles, ~400 KB that every agent of the build sends alike. A
 * value whose bytes are those of one of the `capacity` this parser parsed lately is neither scanned, decoded nor
 * parsed again: the rest of the body is, and the value is the one kept, frozen, shared by every body that carried
 * it. Identical bytes parse to an identical value, and nest as deep where the path puts them, so no different
 * text is ever taken for a kept one, whatever the agent's own manifest hash says; a path whose keys recur or are
 * escaped in the text (where JSON.parse would keep another value) is parsed whole.
 */
export class RecurringValueParser {
  private readonly kept: RecentlyUsed<Buffer, KeptValue>;
  /** The path's last key as JSON writes it unescaped: a body without it holds no value at the path. */
  private readonly lastKey: Buffer;

  constructor(
    private readonly path: readonly string[],
    capacity: number,
    private readonly limits: BodyLimits,
  ) {
    this.kept = new RecentlyUsed(capacity);
    this.lastKey = Buffer.from(JSON.stringify(path.at(-1) ?? ""));
  }

  parse(bytes: Buffer): JsonObject {
    // Most bodies (a light heartbeat, an acknowledgement) need no scan: no value to find (the scan takes no
    // escaped key for the path's either), and too few brackets to nest too deep.
    if (!bytes.includes(this.lastKey) && opensAtMost(bytes, this.limits.maxJsonDepth)) {
      return jsonObjectOf(bytes.toString("utf8"));
    }
    let known: KeptValue | undefined;
    const span = scanJson(new ByteUnits(bytes), this.limits.maxJsonDepth, this.path, (start) => {
      known = this.kept.find(({ bytes: kept }) => bytesAt(bytes, start, kept));
      return known?.bytes.length;
    });
    if (!span) return jsonObjectOf(bytes.toString("utf8"));
    if (!known) {
      const body = jsonObjectOf(bytes.toString("utf8"));
      const kept = Buffer.from(bytes.subarray(span.start, span.end));
      this.kept.set(kept, { bytes: kept, value: deepFreeze(valueAt(body, this.path)) });
      return body;
    }
    // Any JSON value stands in for the kept one: the text that parses around it parses around the kept one. The
    // value starts and ends with an ASCII bracket, so the bytes around it are whole UTF-8 characters.
    const around = `${bytes.toString("utf8", 0, span.start)}0${bytes.toString("utf8", span.end)}`;
    const body = jsonObjectOf(around);
    const parent = valueAt(body, this.path.slice(0, -1)) as JsonObject;
    parent[this.path.at(-1) as string] = known.value;
    return body;
  }
}

/**
 * Whether `bytes` holds at most `max` opening braces and brackets, in strings or not: a text that opens no more
 * containers nests no deeper. Found with indexOf, natively, as a scan would not be.
 */
function opensAtMost(bytes: Buffer, max: number): boolean {
  let opens = 0;
  for (const opening of [OPEN_BRACE, OPEN_BRACKET]) {
    for (let at = bytes.indexOf(opening); at !== -1; at = bytes.indexOf(opening, at + 1)) {
      if (++opens > max) return false;
    }
  }
  return true;
}

/** Whether `bytes` holds `expected` from `start` on. */
const bytesAt = (bytes: Buffer, start: number, expected: Buffer): boolean =>
  bytes.length - start >= expected.length &&
  bytes.compare(expected, 0, expected.length, start, start + expected.length) === 0;

/** The value at `path` of a body the scan found it in: an object at every step. */
const valueAt = (body: JsonObject, path: readonly string[]): unknown =>
  path.reduce<unknown>((value, key) => (value as JsonObject)[key], body);

function deepFreeze(value: unknown): unknown {
  if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/**
 * A JSON text as the scan reads it, unit by unit: its UTF-8 bytes, or a string's UTF-16 code units, as it came.
 * JSON's structural characters are one unit in either, and no unit of another character is one of them.
 */
interface JsonUnits {
  readonly length: number;
  unitAt(index: number): number | undefined;
  /** The index of the first quote at or after `from`, or -1. */
  quoteFrom(from: number): number;
  text(start: number, end: number): string;
}

class ByteUnits implements JsonUnits {
  readonly length: number;
  constructor(private readonly bytes: Buffer) {
    this.length = bytes.length;
  }
  unitAt(index: number) {
    return this.bytes[index];
  }
  quoteFrom(from: number) {
    return this.bytes.indexOf(QUOTE, from);
  }
  text(start: number, end: number) {
    return this.bytes.toString("utf8", start, end);
  }
}

/** A string scanned where it is, never copied to bytes. */
class StringUnits implements JsonUnits {
  readonly length: number;
  constructor(private readonly string: string) {
    this.length = string.length;
  }
  unitAt(index: number) {
    // NaN past either end, which is no unit the scan looks for, as a Buffer's undefined is not.
    return this.string.charCodeAt(index);
  }
  quoteFrom(from: number) {
    return this.string.indexOf('"', from);
  }
  text(start: number, end: number) {
    return this.string.slice(start, end);
  }
}

/** Where a value is in a text: from its first unit to just after its last. */
interface Span {
  start: number;
  end: number;
}

/**
 * One pass over a JSON text's units: checks its nesting against `maxDepth`, and finds the object or array at `path` (keys from the
 * top-level object down), should it be there exactly once, its keys unescaped and found once each in their
 * objects. Where `knownLength` says the value opened at the path is a known one of that many bytes, already
 * checked at this depth, the scan goes on after it.
 */
function scanJson(
  units: JsonUnits,
  maxDepth: number,
  path: readonly string[],
  knownLength: (start: number) => number | undefined,
): Span | undefined {
  let depth = 0;
  // The containers at depths 1 to onPath are the top-level object and the values of path's first keys.
  let onPath = 0;
  let nextOpensPath = false;
  let ambiguous = false;
  const keysSeen = path.map(() => 0);
  let start = -1;
  let end = -1;
  const { length } = units;
  for (let index = 0; index < length; index++) {
    const code = units.unitAt(index);
    if (code === QUOTE) {
      const closing = closingQuoteOf(units, index);
      if (depth === onPath && depth >= 1 && depth <= path.length && !ambiguous) {
        const colon = nextNonSpace(units, closing + 1);
        if (units.unitAt(colon) === COLON) {
          const key = units.text(index + 1, closing);
          if (key.includes("\\")) ambiguous = true;
          else if (key === path[depth - 1]) {
            ambiguous = ++(keysSeen[depth - 1] as number) > 1;
            const value = units.unitAt(nextNonSpace(units, colon + 1));
            nextOpensPath = value === OPEN_BRACE || value === OPEN_BRACKET;
          }
        }
      }
      index = closing;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > maxDepth) {
        throw new BeaconError("payload_too_deep", `The body nests deeper than ${maxDepth} levels`);
      }
      if (depth === 1 || nextOpensPath) {
        onPath = depth;
        if (depth === path.length + 1) {
          start = index;
          const known = knownLength(start);
          if (known !== undefined) {
            // As the scan would leave it at the value's closing bracket.
            end = start + known;
            index = end - 1;
            onPath--;
            depth--;
          }
        }
      }
      nextOpensPath = false;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      if (depth === onPath) {
        if (depth === path.length + 1) end = index + 1;
        onPath--;
      }
      depth--;
    }
  }
  return path.length > 0 && !ambiguous && start !== -1 && end !== -1 ? { start, end } : undefined;
}

/** The index of the first unit at or after `from` that is no JSON whitespace. */
function nextNonSpace(units: JsonUnits, from: number): number {
  let index = from;
  while (index < units.length && isJsonSpace(units.unitAt(index) as number)) index++;
  return index;
}

const isJsonSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

/**
 * Where the string opened at `start` closes (the text's length if it does not): found with indexOf, which skips
 * the strings' units natively, where most of an agent's JSON is, instead of one by one.
 */
function closingQuoteOf(units: JsonUnits, start: number): number {
  for (let quote = units.quoteFrom(start + 1); quote !== -1; quote = units.quoteFrom(quote + 1)) {
    let backslashes = 0;
    while (units.unitAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    // An odd run of backslashes escapes the quote; an even one is escaped backslashes before it.
    if (backslashes % 2 === 0) return quote;
  }
  return units.length;
}

import { createHash, createHmac } from "node:crypto";

/** The credentials a request is signed with, as the SDK's providers give them. */
export interface SigningCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** A JSON-protocol call as signed: a POST of `body` to `path` on `host`, with its own headers. */
export interface PostToSign {
  host: string;
  path: string;
  /** Lower-case names; signed as given, with `host`, `x-amz-date` and the session token's header. */
  headers: Record<string, string>;
  body: string;
}

/** A request as signed: a POST's parts, its method, and its query string as canonicalQuery gives it. */
export interface RequestToSign extends Omit<PostToSign, "body"> {
  method: string;
  query: string;
  body: string | Buffer;
}

/** The headers a POST is sent with, signed as signedHeaders signs any request. */
export const signedPostHeaders = (
  post: PostToSign,
  credentials: SigningCredentials,
  region: string,
  service: string,
  now: Date,
): Record<string, string> =>
  signedHeaders({ ...post, method: "POST", query: "" }, credentials, region, service, now);

/**
 * The headers a request is sent with, signed by AWS Signature Version 4 for `service` in `region` at `now`
 * (`authorization`, `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` with a session's credentials, and
 * the request's own).
 * The signing key is derived once a day per credentials, region and service, as the SDK's signer keeps it.
 */
export function signedHeaders(
  request: RequestToSign,
  credentials: SigningCredentials,
  region: string,
  service: string,
  now: Date,
): Record<string, string> {
  const amzDate = now.toISOString().replace(/[-:]|\.\d{3}/g, "");
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256Hex(request.body);
  // The payload's hash sent as well as signed, as the SDK's signer sends it (S3 requires it, others take it).
  const headers: Record<string, string> = {
    ...request.headers,
    host: request.host,
    "x-amz-content-sha256": payloadHash,
    "x-amz-date": amzDate,
  };
  if (credentials.sessionToken) headers["x-amz-security-token"] = credentials.sessionToken;
  const names = Object.keys(headers).sort();
  const signedHeaderNames = names.join(";");
  const canonicalRequest = [
    request.method,
    // S3's paths are signed as sent, every other service's normalised and encoded once more.
    service === "s3" ? request.path : canonicalPath(request.path),
    request.query,
    ...names.map((name) => `${name}:${headers[name]?.trim().replace(/\s+/g, " ")}`),
    "",
    signedHeaderNames,
    payloadHash,
  ].join("\n");
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  const signature = createHmac("sha256", signingKey(credentials.secretAccessKey, day, region, service))
    .update(stringToSign)
    .digest("hex");
  headers.authorization =
    `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, ` +
    `SignedHeaders=${signedHeaderNames}, Signature=${signature}`;
  return headers;
}

/** A query's parameters as SigV4 signs them and a request may send them: encoded, sorted by name. */
export function canonicalQuery(parameters: Record<string, string | undefined>): string {
  return (
    Object.entries(parameters)
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([name, value]) => ({ name: uriEncode(name), value: uriEncode(value) }))
      // By the encoded names' code units, as SigV4 orders them; a record names each parameter once.
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map(({ name, value }) => `${name}=${value}`)
      .join("&")
  );
}

/**
 * The path as SigV4 canonicalises it for every service but S3: its segments normalised (empty and `.` ones
 * dropped, `..` taking the one before) and encoded once more, a path being already encoded once (an endpoint
 * URL's `pathname` is).
 */
function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(uriEncode(segment));
  }
  const trailing = segments.length > 0 && path.endsWith("/") ? "/" : "";
  return `${path.startsWith("/") ? "/" : ""}${segments.join("/")}${trailing}`;
}

/** RFC 3986's unreserved characters kept, everything else percent-encoded (encodeURIComponent keeps !'()*). */
export function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function sha256Hex(text: string | Buffer): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Derived keys by scope and secret: a function signs for one identity, region and service or two a day. */
const signingKeys = new Map<string, Buffer>();
const KEPT_SIGNING_KEYS = 16;

function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  const kept = `${day}/${region}/${service}/${secret}`;
  let key = signingKeys.get(kept);
  if (key) return key;
  key = hmac(`AWS4${secret}`, day);
  for (const part of [region, service, "aws4_request"]) key = hmac(key, part);
  if (signingKeys.size >= KEPT_SIGNING_KEYS) signingKeys.clear();
  signingKeys.set(kept, key);
  return key;
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac("sha256", key).update(data).digest();
}

import { loadedOnce } from "../../core/loaded-once.js";
import { callSettingsOf, type MadeForDirectCalls, type SdkClient } from "../aws/call-settings.js";
import { connectionTimeoutMs, s3RequestTimeoutFor } from "../aws/call-timeouts.js";
import { keptAliveRequests, type ServiceAnswer } from "../aws/kept-alive-post.js";
import { AwsServiceError, retried } from "../aws/retried.js";
import { canonicalQuery, signedHeaders, uriEncode } from "../aws/signature-v4.js";

/** An object as a listing names it. */
export interface ListedObject {
  key: string;
  size: number;
  lastModified: Date;
}

/** A page of a listing: its objects, its folders (with a delimiter), and the token of the next page, if any. */
export interface ObjectPage {
  objects: ListedObject[];
  folders: string[];
  next?: string;
}

/** The calls of one bucket's objects Beacon makes directly. */
export interface ObjectCalls {
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** The object's bytes; an `AwsServiceError` named `NoSuchKey` when there is none. */
  get(key: string): Promise<Buffer>;
  /** A page of up to 1,000 keys under `prefix`, rolled up into folders at `delimiter` when given. */
  list(prefix: string, options?: { delimiter?: string; continuationToken?: string }): Promise<ObjectPage>;
}

/**
 * S3's `PutObject`, `GetObject` and `ListObjectsV2` for one bucket, over a client's own settings (region, endpoint,
 * credentials, retry strategy), without the SDK's client: each call a request signed by signature-v4.ts and sent
 * over kept-alive-post.ts's connections, retried as the SDK's standard strategy retries. A function whose start
 * reads or writes the event archive (the stream consumer, the sweeper's daily snapshot) then loads none of the
 * S3 SDK. The bucket is addressed by path at an endpoint of the operator's own (S3Proxy, say: a local server has
 * no DNS name per bucket), by host on AWS where the bucket's name allows it, as the SDK addresses it.
 */
export function s3ObjectCalls(client: SdkClient | MadeForDirectCalls, bucket: string): ObjectCalls {
  const prepared = loadedOnce(async () => {
    const settings = await callSettingsOf(client);
    const { target } = settings;
    const byHost = !settings.customEndpoint && hostsBucket(bucket, target.protocol);
    const hostname = byHost ? `${bucket}.${target.hostname}` : target.hostname;
    const send = keptAliveRequests(
      { protocol: target.protocol, hostname, port: target.port },
      { connectionTimeoutMs, requestTimeoutMs: s3RequestTimeoutFor(settings.customEndpoint) },
    );
    const endpointPath = target.path.replace(/\/$/, "");
    return {
      settings,
      host: target.port ? `${hostname}:${target.port}` : hostname,
      // The path every object's key follows, and, alone, the bucket's.
      base: byHost ? endpointPath : `${endpointPath}/${uriEncode(bucket)}`,
      send,
    };
  });
  const retries = loadedOnce(async () => (await prepared()).settings.retries());

  /** One call: the object's path (the bucket's without a key), its query, its headers and body, signed and retried. */
  const call = async (
    method: string,
    key: string | undefined,
    query: Record<string, string | undefined>,
    headers: Record<string, string>,
    body: Buffer | string,
  ): Promise<ServiceAnswer> => {
    const { settings, host, base, send } = await prepared();
    const path = key === undefined ? base || "/" : `${base}/${key.split("/").map(uriEncode).join("/")}`;
    const queryString = canonicalQuery(query);
    const once = async () => {
      const signed = signedHeaders(
        { method, host, path, query: queryString, headers, body },
        await settings.credentials(),
        settings.region,
        "s3",
        new Date(),
      );
      const answer = await send({
        method,
        path: queryString ? `${path}?${queryString}` : path,
        headers: signed,
        body,
      });
      if (answer.statusCode >= 200 && answer.statusCode < 300) return answer;
      throw errorOf(answer);
    };
    return retried(once, retries, method, undefined);
  };

  return {
    async put(key, body, contentType) {
      await call(
        "PUT",
        key,
        {},
        { "content-type": contentType, "content-length": String(body.length) },
        body,
      );
    },
    async get(key) {
      return (await call("GET", key, {}, {}, "")).body;
    },
    async list(prefix, options = {}) {
      const { body } = await call(
        "GET",
        undefined,
        {
          "list-type": "2",
          prefix,
          delimiter: options.delimiter,
          "continuation-token": options.continuationToken,
        },
        {},
        "",
      );
      return listingOf(body.toString("utf8"));
    },
  };
}

/**
 * Whether the bucket may be named in the host, as the SDK's endpoint rules decide it: a DNS label of lower-case
 * letters, digits and hyphens (and, over plain HTTP, dots), not shaped like an IP address.
 */
function hostsBucket(bucket: string, protocol: string): boolean {
  const label =
    protocol === "https:" ? /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/ : /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
  return label.test(bucket) && !/^\d+\.\d+\.\d+\.\d+$/.test(bucket) && !bucket.includes("..");
}

/** `ListObjectsV2`'s answer (`ListBucketResult`) read: its objects, its common prefixes and its next token. */
export function listingOf(xml: string): ObjectPage {
  const objects = elements(xml, "Contents").map((contents) => ({
    key: textOf(contents, "Key") ?? "",
    size: Number(textOf(contents, "Size") ?? 0),
    lastModified: new Date(textOf(contents, "LastModified") ?? 0),
  }));
  const folders = elements(xml, "CommonPrefixes").flatMap((common) => textOf(common, "Prefix") ?? []);
  const truncated = textOf(xml, "IsTruncated") === "true";
  const next = truncated ? textOf(xml, "NextContinuationToken") : undefined;
  return { objects, folders, ...(next === undefined ? {} : { next }) };
}

/** Each element's content, in order; S3's answers do not nest an element in one of its own name. */
function elements(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, "g"))].map((match) => match[1] ?? "");
}

/** The text of the first element of that name, its entities decoded; undefined when there is none. */
function textOf(xml: string, name: string): string | undefined {
  const match = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return match ? decodeEntities(match[1] ?? "") : undefined;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** XML's five named entities and its character references, as S3 escapes keys and messages. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_entity, name: string) =>
    name.startsWith("#x")
      ? String.fromCodePoint(Number.parseInt(name.slice(2), 16))
      : name.startsWith("#")
        ? String.fromCodePoint(Number(name.slice(1)))
        : (ENTITIES[name] as string),
  );
}

/**
 * The error S3 answered (`<Error><Code>…</Code><Message>…</Message></Error>`), named by its code; an answer
 * without a body (a HEAD's, a proxy's) by its status, as the SDK names them (`NotFound` for a 404).
 */
function errorOf({ statusCode, body }: ServiceAnswer): AwsServiceError {
  const xml = body.toString("utf8");
  const code = textOf(xml, "Code") ?? (statusCode === 404 ? "NotFound" : `HTTP${statusCode}`);
  const message = textOf(xml, "Message") ?? xml.slice(0, 200);
  return new AwsServiceError(code, message, statusCode, {});
}

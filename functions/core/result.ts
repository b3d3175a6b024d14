/** What a console use case answers: the body the OpenAPI document describes, and how the cache fared. */
export interface ConsoleResult {
  status?: 200 | 201 | 202 | 302;
  /** Where a 302 sends the caller. */
  location?: string;
  /** A JSON value, or text or bytes to send exactly as stored (a raw manifest or flow, an asset). */
  body: unknown;
  /** The stored text's or bytes' media type, when it is not JSON. */
  contentType?: string;
  /** The cache failed and the registry answered instead. */
  cacheError?: unknown;
  /** The change was made, but its events could not be put on the stream. */
  streamError?: unknown;
}

/**
 * How long a download link the console hands out lasts: long enough to follow the redirect and fetch 100 MiB
 * on a slow link, short enough that a link copied out of a browser's history is useless soon after.
 */
export const DOWNLOAD_LINK_SECONDS = 300;

/**
 * A download by a short-lived link to the bytes in storage, whose size no Lambda answer bounds: a redirect to
 * it, or with `redirect: false` the link in a 200's body, for a web page, which cannot read a redirect.
 */
export function downloadLink(location: string, options: { redirect?: boolean }): ConsoleResult {
  if (options.redirect === false) return { body: { location } };
  return { status: 302, body: { location }, location };
}

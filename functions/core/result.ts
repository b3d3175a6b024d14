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

export interface Clock {
  now(): number;
}

export interface IdGenerator {
  newId(): string;
}

/** Cryptographically strong random bytes, for secrets Beacon hands out. */
export interface RandomSource {
  bytes(count: number): Uint8Array;
}

/** Stored bytes agents download by their hash (a flow version, an asset), and how to serve them. */
export interface StoredContent {
  hash: string;
  contentType: string;
  bytes: Uint8Array;
}

/**
 * Stored bytes opened to be read as they arrive, with their length: a download of any size holds one chunk at a
 * time. Whoever opens it reads the body to its end or cancels it, which lets go of the connection under it.
 */
export interface StreamedContent {
  hash: string;
  contentType: string;
  /** In bytes. */
  length: number;
  body: ReadableStream<Uint8Array>;
}

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

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

/**
 * A map that keeps at most `capacity` entries, forgetting the least recently used first: what one
 * container learns once and reuses for many requests (a manifest it registered, a certificate it read)
 * without growing with every agent it ever served.
 */
export class RecentlyUsed<K, V> {
  // In insertion order, least recently used first; an entry used again moves to the end.
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) this.set(key, value);
    return value;
  }

  /** The most recently used value that `matches`, now the most recently used. */
  find(matches: (value: V) => boolean): V | undefined {
    for (const [key, value] of [...this.entries].reverse()) {
      if (matches(value)) {
        this.set(key, value);
        return value;
      }
    }
    return undefined;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }
}

/**
 * Copies one container keeps of what it read (a class's settings, a tenant's groups, a secret), each served for
 * `keptMs` after it was read and then read again, so that a change elsewhere reaches the container within that
 * time; at most `capacity` of them, the least recently used forgotten first.
 */
export class KeptFor<K, V> {
  private readonly copies: RecentlyUsed<K, { value: V; until: number }>;

  constructor(
    capacity: number,
    private readonly keptMs: number,
  ) {
    this.copies = new RecentlyUsed(capacity);
  }

  /** The copy of `key` read less than `keptMs` before `now`, if there is one. */
  get(key: K, now: number): V | undefined {
    const copy = this.copies.get(key);
    return copy && copy.until > now ? copy.value : undefined;
  }

  /** `value`, read at `now`, as the copy of `key`. */
  set(key: K, value: V, now: number): void {
    this.copies.set(key, { value, until: now + this.keptMs });
  }

  /** The copy of `key` no longer served: the next to ask reads it again. */
  forget(key: K): void {
    this.copies.delete(key);
  }

  /** No copy served any more: the next to ask for each reads it again. */
  forgetAll(): void {
    this.copies.clear();
  }
}

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

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }
}

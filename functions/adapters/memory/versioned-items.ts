/**
 * Items with a version, written only over the version read, with a turn of the event loop in between: two
 * updates of one item at once race here as they do on the table, and the loser asks its change again.
 */
export class VersionedItems<T> {
  readonly items = new Map<string, { item: T; version: number }>();
  writes = 0;

  async updateItem(id: string, change: (stored: T | undefined) => T | undefined): Promise<void> {
    for (;;) {
      const read = this.items.get(id);
      const next = change(read && structuredClone(read.item));
      if (!next) return;
      await Promise.resolve();
      if (this.items.get(id)?.version !== read?.version) continue;
      this.writes++;
      this.items.set(id, { item: structuredClone(next), version: (read?.version ?? 0) + 1 });
      return;
    }
  }

  /** Copies of the items `keep` keeps, in the order `compare` gives. */
  select(keep: (item: T) => boolean, compare: (a: T, b: T) => number): T[] {
    return [...this.items.values()]
      .map(({ item }) => item)
      .filter(keep)
      .sort(compare)
      .map((item) => structuredClone(item));
  }
}

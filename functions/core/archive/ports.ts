/** The archive's bucket: objects are written whole, and writing a key again replaces its object. */
export interface ArchiveStore {
  /** Stores the text, compressed, under `key`; resolves once it is durable. */
  put(key: string, text: string): Promise<void>;
}

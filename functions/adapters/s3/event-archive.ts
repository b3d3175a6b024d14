import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { ArchiveStore } from "../../core/archive/ports.js";
import type { ObjectCalls } from "./object-calls.js";

const gzipAsync = promisify(gzip);

/**
 * The event archive's objects, gzip-compressed (Athena reads `.gz` objects as gzip by their name) and encrypted
 * by the bucket's default encryption.
 */
export class S3EventArchive implements ArchiveStore {
  constructor(private readonly objects: ObjectCalls) {}

  async put(key: string, text: string): Promise<void> {
    await this.objects.put(key, await gzipAsync(text), "application/gzip");
  }
}

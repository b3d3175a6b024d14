/**
 * The pure parts of an asset's upload in parts (web/src/api/parts-upload.ts sends them, for the page and the
 * CLI): whether a file's size may be an asset; the file's SHA-256 read slice by slice, never held whole; where
 * each part's bytes are; the upload's progress over parts sent at once.
 *
 * WebCrypto's digest takes its whole input at once, so the hash is @noble/hashes's incremental SHA-256 (audited,
 * dependency-free, maintained, plain JavaScript: a WebAssembly hash such as hash-wasm's would need
 * `'wasm-unsafe-eval'` in the console's Content-Security-Policy).
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { MAX_ASSET_BYTES } from "../../functions/core/assets/model.js";
import { byteSize } from "./format.js";

/** Why a file of `sizeBytes` cannot be an asset (empty, or over the API's limit), said before any of it is sent. */
export function assetSizeProblem(fileName: string, sizeBytes: number): string | undefined {
  if (sizeBytes === 0) return `${fileName} is empty: an asset has at least one byte.`;
  if (sizeBytes > MAX_ASSET_BYTES)
    return `${fileName} is ${byteSize(sizeBytes)} (${sizeBytes} bytes): an asset is at most ${byteSize(MAX_ASSET_BYTES)} (${MAX_ASSET_BYTES} bytes).`;
  return undefined;
}

/** Read and hashed at a time: one part's worth, so hashing holds what one part in flight would. */
export const HASH_SLICE_BYTES = 8 * 1024 * 1024;

/** The SHA-256 of the blob as lower-case hex, read `sliceBytes` at a time; `onProgress` gets the bytes read. */
export async function sha256OfBlob(
  blob: Blob,
  onProgress: (done: number) => void,
  sliceBytes = HASH_SLICE_BYTES,
): Promise<string> {
  const hash = sha256.create();
  for (let start = 0; start < blob.size; start += sliceBytes) {
    const end = Math.min(start + sliceBytes, blob.size);
    hash.update(new Uint8Array(await blob.slice(start, end).arrayBuffer()));
    onProgress(end);
  }
  return bytesToHex(hash.digest());
}

/** Where a part's bytes are in the file: from (partNumber - 1) × partBytes, the part's size of them. */
export function partRange(upload: { partBytes: number }, part: { partNumber: number; sizeBytes: number }) {
  const start = (part.partNumber - 1) * upload.partBytes;
  return { start, end: start + part.sizeBytes };
}

/** Adds up what each part has sent so far (a part sent again counts once) into the upload's progress. */
export function sentTotal(total: number, onProgress: (done: number) => void) {
  const sentByPart = new Map<number, number>();
  return (partNumber: number, bytes: number) => {
    sentByPart.set(partNumber, bytes);
    let done = 0;
    for (const sent of sentByPart.values()) done += sent;
    onProgress(Math.min(done, total));
  };
}

/** Runs `work` on every item, at most `limit` at once; the first failure fails the whole, once the rest end. */
export async function eachAtMost<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}

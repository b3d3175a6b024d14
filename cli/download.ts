/** A download through a short-lived link the API hands out, streamed to a file and never held whole. */
import { createHash } from "node:crypto";
import { createWriteStream, renameSync, rmSync } from "node:fs";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";

export interface SavedFile {
  file: string;
  bytes: number;
  sha256: string;
}

/**
 * Streams `what` from its link (signed for the bucket: fetched without the token, which is the API's only) to
 * `${file}.part`, hashing and counting on the way, then renames it: never half a file.
 */
export async function saveStreamed(what: string, url: string, file: string): Promise<SavedFile> {
  const response = await fetch(url);
  if (!response.ok || response.body === null) {
    throw new Error(`The ${what}'s download link answered ${response.status} ${response.statusText}`);
  }
  const hash = createHash("sha256");
  let bytes = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  const partial = `${file}.part`;
  try {
    await pipeline(Readable.fromWeb(response.body), measure, createWriteStream(partial));
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  renameSync(partial, file);
  return { file, bytes, sha256: hash.digest("hex") };
}

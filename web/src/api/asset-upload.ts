/**
 * How the browser sends an asset's bytes, with progress: straight to storage, in parts (parts-upload.ts), since
 * one request through the console API carries 4 MiB at most and an asset may be 100 MiB. The Assets page knows
 * only `AssetTransport`.
 *
 * The file is never held whole: its SHA-256 (the asset's id, declared when the upload starts) is computed
 * slice by slice (asset-parts.ts), and each part is sent as a slice of the file, which the browser reads from
 * disk as it sends.
 */
import { sha256OfBlob } from "../asset-parts";
import type { ConsoleClient } from "./client";
import { PartRefused, type UploadedAsset, type UploadPart, uploadInParts } from "./parts-upload";

/** Parts sent at once: enough to keep a link busy, few enough to leave the browser's other requests room. */
const PARALLEL_PARTS = 3;

export interface UploadProgress {
  /** Hashing: the file read for its SHA-256; sending: its parts on their way to storage. */
  stage: "hashing" | "sending";
  done: number;
  total: number;
}

export type AssetTransport = (
  file: Blob,
  name: string,
  onProgress: (progress: UploadProgress) => void,
) => Promise<UploadedAsset>;

/**
 * Hashes the file, then uploads it in parts, each a slice of the file. The console API's 401 signs the session
 * out (the client does).
 */
export function presignedAssetUpload(client: ConsoleClient): AssetTransport {
  return async (file, name, onProgress) => {
    const total = file.size;
    const digest = await sha256OfBlob(file, (done) => onProgress({ stage: "hashing", done, total }));
    const declared = {
      name,
      sizeBytes: total,
      sha256: digest,
      contentType: file.type || "application/octet-stream",
    };
    return uploadInParts(
      client,
      declared,
      (part, { start, end }, onSent) => putPart(part, file.slice(start, end), onSent),
      { parallel: PARALLEL_PARTS, onSent: (done) => onProgress({ stage: "sending", done, total }) },
    );
  };
}

/**
 * A plain PUT of the part's bytes to its presigned URL, through XMLHttpRequest, whose upload reports how much
 * it sent (fetch does not).
 */
function putPart(part: UploadPart, bytes: Blob, onSent: (bytes: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("PUT", part.url);
    request.upload.onprogress = (event) => onSent(event.loaded);
    request.onerror = () => reject(new PartRefused(part.partNumber, 0, ""));
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) {
        onSent(bytes.size);
        resolve();
      } else {
        reject(new PartRefused(part.partNumber, request.status, request.statusText));
      }
    };
    request.send(bytes);
  });
}

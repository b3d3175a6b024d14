/**
 * How the browser sends an asset's bytes, with progress: straight to storage, in parts, by the presigned URLs
 * the console API hands out (`POST /assets/uploads`), since one request through the console API carries 4 MiB
 * at most and an asset may be 100 MiB. The Assets page knows only `AssetTransport`.
 *
 * The file is never held whole: its SHA-256 (the asset's id, declared when the upload starts) is computed
 * slice by slice (asset-parts.ts), and each part is sent as a slice of the file, which the browser reads from
 * disk as it sends.
 */
import { eachAtMost, partRange, sentTotal, sha256OfBlob } from "../asset-parts";
import { ApiError, apiError, type ConsoleClient, dataOf, type Schemas } from "./client";

/** Parts sent at once: enough to keep a link busy, few enough to leave the browser's other requests room. */
const PARALLEL_PARTS = 3;

export interface UploadProgress {
  /** Hashing: the file read for its SHA-256; sending: its parts on their way to storage. */
  stage: "hashing" | "sending";
  done: number;
  total: number;
}

/** The asset as stored, and whether this upload stored it (false: the tenant had the same bytes and name). */
export interface UploadedAsset {
  asset: Schemas["Asset"];
  created: boolean;
}

export type AssetTransport = (
  file: Blob,
  name: string,
  onProgress: (progress: UploadProgress) => void,
) => Promise<UploadedAsset>;

type Upload = Schemas["AssetUpload"];
type UploadPart = Upload["parts"][number];

/**
 * Hashes the file, starts the upload, PUTs its parts, completes it; an upload that fails after it started is
 * aborted, so nothing of it stays. The console API's 401 signs the session out (the client does).
 */
export function presignedAssetUpload(client: ConsoleClient): AssetTransport {
  return async (file, name, onProgress) => {
    const total = file.size;
    const digest = await sha256OfBlob(file, (done) => onProgress({ stage: "hashing", done, total }));
    let upload: Upload;
    try {
      upload = await dataOf(
        client.POST("/api/v1/assets/uploads", {
          body: {
            name,
            sizeBytes: total,
            sha256: digest,
            contentType: file.type || "application/octet-stream",
          },
        }),
      );
    } catch (error) {
      const known = await knownUnderName(client, error, digest, name);
      if (known) return { asset: known, created: false };
      throw error;
    }
    try {
      const sent = sentTotal(total, (done) => onProgress({ stage: "sending", done, total }));
      await eachAtMost(upload.parts, PARALLEL_PARTS, (part) => {
        const { start, end } = partRange(upload, part);
        return putPart(part, file.slice(start, end), (bytes) => sent(part.partNumber, bytes));
      });
      const { data, error, response } = await client.POST("/api/v1/assets/uploads/{uploadId}/complete", {
        params: { path: { uploadId: upload.uploadId } },
      });
      if (!response.ok || data === undefined) throw apiError(response, error);
      return { asset: data, created: response.status === 201 };
    } catch (error) {
      await client
        .DELETE("/api/v1/assets/uploads/{uploadId}", { params: { path: { uploadId: upload.uploadId } } })
        .catch(() => undefined);
      throw error;
    }
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
    request.onerror = () => reject(new Error(`Part ${part.partNumber} did not reach the storage`));
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) {
        onSent(bytes.size);
        resolve();
      } else {
        reject(
          new Error(`The storage refused part ${part.partNumber}: ${request.status} ${request.statusText}`),
        );
      }
    };
    request.send(bytes);
  });
}

/** When the start was refused because the tenant has these bytes: the asset, if it has them under this name. */
async function knownUnderName(
  client: ConsoleClient,
  error: unknown,
  assetId: string,
  name: string,
): Promise<Schemas["Asset"] | undefined> {
  if (!(error instanceof ApiError) || error.code !== "asset_exists") return undefined;
  const known = await dataOf(client.GET("/api/v1/assets/{assetId}", { params: { path: { assetId } } }));
  return known.name === name ? known : undefined;
}

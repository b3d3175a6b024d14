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
 * Hashes the file, starts the upload, PUTs its parts (a part whose link storage refuses signed again once),
 * completes it; an upload that fails after it started is aborted, so nothing of it stays. The console API's 401 signs the session out (the client does).
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
        return putPartSignedAgainOnce(client, upload.uploadId, part, file.slice(start, end), (bytes) =>
          sent(part.partNumber, bytes),
        );
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
 * Storage's refusal of a part: its HTTP status (403: the link expired, or the credentials that signed it), or 0
 * when the page could read no answer: a refusal without CORS headers (S3Proxy's, for one) reaches it as none.
 */
class PartRefused extends Error {
  constructor(
    readonly partNumber: number,
    readonly status: number,
    statusText: string,
  ) {
    super(
      status === 0
        ? `Part ${partNumber} did not reach the storage, or its answer could not be read`
        : `The storage refused part ${partNumber}: ${status} ${statusText}`,
    );
  }
}

/** Whether storage may have refused the part's link: 403, or an answer the page could not read. */
const linkRefused = (error: unknown): error is PartRefused =>
  error instanceof PartRefused && (error.status === 403 || error.status === 0);

/**
 * Sends a part; when storage refuses its link (403: expired, or its signer's credentials rotated, which on AWS
 * can come before the link's own expiry), has the part signed again and sends it once more. A second refusal
 * fails the upload, saying so.
 */
async function putPartSignedAgainOnce(
  client: ConsoleClient,
  uploadId: string,
  part: UploadPart,
  bytes: Blob,
  onSent: (bytes: number) => void,
): Promise<void> {
  try {
    await putPart(part, bytes, onSent);
    return;
  } catch (error) {
    if (!linkRefused(error)) throw error;
  }
  const signed = await dataOf(
    client.POST("/api/v1/assets/uploads/{uploadId}/parts", {
      params: { path: { uploadId } },
      body: { partNumbers: [part.partNumber] },
    }),
  );
  try {
    await putPart(signed.parts[0] ?? part, bytes, onSent);
  } catch (error) {
    if (!(error instanceof PartRefused)) throw error;
    throw new Error(
      `The storage refused part ${part.partNumber} twice, the second time by a freshly signed link (${error.status || "no answer"}): the upload is abandoned, try again later`,
    );
  }
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

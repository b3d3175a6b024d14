/**
 * An asset's upload in parts straight to storage, however its bytes are read and sent: the browser's from a
 * File by XMLHttpRequest (asset-upload.ts), the CLI's from a file on disk by node:http (cli/assets.ts). The
 * console API takes one request of 4 MiB at most and an asset may be 100 MiB, so the upload is declared
 * (`POST /assets/uploads`: name, size, SHA-256), its parts PUT to the presigned URLs the answer lists, a part
 * whose link storage refuses signed again once, and completed; one that fails after it started is aborted, so
 * nothing of it stays.
 */
import { eachAtMost, partRange, sentTotal } from "../asset-parts.js";
import { ApiError, apiError, type ConsoleClient, dataOf, type Schemas } from "./client.js";

export type Upload = Schemas["AssetUpload"];
export type UploadPart = Upload["parts"][number];

/** The asset as stored, and whether this upload stored it (false: the tenant had the same bytes and name). */
export interface UploadedAsset {
  asset: Schemas["Asset"];
  created: boolean;
}

/** Where a part's bytes are in the file: from `start`, up to `end` (excluded). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Sends a part's bytes (those of `range` in the file) by a plain PUT to its URL, telling `onSent` how many of
 * them went so far; storage's refusal is a `PartRefused`.
 */
export type PartSender = (
  part: UploadPart,
  range: ByteRange,
  onSent: (bytes: number) => void,
) => Promise<void>;

export interface PartsUploadOptions {
  /** Parts sent at once. */
  parallel: number;
  /** The bytes sent so far, of the declared size. */
  onSent(done: number): void;
  /** The upload started: its id and parts. */
  onStarted?(upload: Upload): void;
  /** Storage refused the part's link, which is signed again. */
  onSignedAgain?(partNumber: number): void;
  /** Aborted (Ctrl-C): no part starts after it, and the upload is aborted. */
  signal?: AbortSignal;
}

/**
 * Storage's refusal of a part: its HTTP status (403: the link expired, or the credentials that signed it), or 0
 * when no answer could be read: a page reads a refusal without CORS headers (S3Proxy's, for one) as none.
 */
export class PartRefused extends Error {
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

/** Whether storage may have refused the part's link, so that a freshly signed one may go through: 403, or no answer read. */
export const linkRefused = (error: unknown): error is PartRefused =>
  error instanceof PartRefused && (error.status === 403 || error.status === 0);

/** Declares the upload, sends its parts with `sendPart`, completes it; aborts it when anything after the start fails. */
export async function uploadInParts(
  client: ConsoleClient,
  declared: Schemas["AssetUploadStart"],
  sendPart: PartSender,
  options: PartsUploadOptions,
): Promise<UploadedAsset> {
  let upload: Upload;
  try {
    upload = await dataOf(client.POST("/api/v1/assets/uploads", { body: declared }));
  } catch (error) {
    const known = await knownUnderName(client, error, declared.sha256, declared.name);
    if (known) return { asset: known, created: false };
    throw error;
  }
  options.onStarted?.(upload);
  try {
    const sent = sentTotal(declared.sizeBytes, options.onSent);
    await eachAtMost(upload.parts, options.parallel, (part) => {
      options.signal?.throwIfAborted();
      return sendSignedAgainOnce(client, upload, part, sendPart, options, (bytes) =>
        sent(part.partNumber, bytes),
      );
    });
    options.signal?.throwIfAborted();
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
}

/**
 * Sends a part; when storage refuses its link (403: expired, or its signer's credentials rotated, which on AWS
 * can come before the link's own expiry), has the part signed again and sends it once more. A second refusal
 * fails the upload, saying so.
 */
async function sendSignedAgainOnce(
  client: ConsoleClient,
  upload: Upload,
  part: UploadPart,
  sendPart: PartSender,
  options: PartsUploadOptions,
  onSent: (bytes: number) => void,
): Promise<void> {
  const range = partRange(upload, part);
  try {
    await sendPart(part, range, onSent);
    return;
  } catch (error) {
    if (!linkRefused(error)) throw error;
  }
  options.signal?.throwIfAborted();
  options.onSignedAgain?.(part.partNumber);
  const signed = await dataOf(
    client.POST("/api/v1/assets/uploads/{uploadId}/parts", {
      params: { path: { uploadId: upload.uploadId } },
      body: { partNumbers: [part.partNumber] },
    }),
  );
  try {
    await sendPart(signed.parts[0] ?? part, range, onSent);
  } catch (error) {
    if (!(error instanceof PartRefused)) throw error;
    throw new Error(
      `The storage refused part ${part.partNumber} twice, the second time by a freshly signed link (${error.status || "no answer"}): the upload is abandoned, try again later`,
    );
  }
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

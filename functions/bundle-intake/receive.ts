/**
 * Reading one debug bundle upload, whichever ingress carries it: the form's part `file`, counted as it is read and
 * refused past the ingress's limit, streamed to storage through the intake's use case (core/bundles/intake.ts).
 */
import type { Readable } from "node:stream";
import busboy from "busboy";
import type { DebugBundleIntake } from "../core/bundles/intake.js";
import {
  DEBUG_BUNDLE_PART,
  type DebugBundle,
  debugBundleNotExpected,
  debugBundleTooLarge,
} from "../core/bundles/model.js";
import { BeaconError } from "../core/errors.js";
import type { DistinguishedCertificate } from "../core/identity/ca-bindings.js";

/** Room for the form's boundaries and part headers around a bundle of the largest size. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

export interface BundleUpload {
  operationId: string;
  certificate: DistinguishedCertificate;
  headers: Record<string, string | string[] | undefined>;
  /** The request's body, as it arrives. */
  body: Readable;
}

/**
 * Admits the upload (before reading a byte of it), then stores the part `file` as it is read, at most `limit`
 * bytes of it: past that, or on a body that is no form (415) or has no such part or breaks off (400), nothing is
 * left stored.
 */
export async function receiveDebugBundle(
  intake: DebugBundleIntake,
  upload: BundleUpload,
  limit: number,
): Promise<DebugBundle> {
  const slot = await intake.admit(upload.certificate, upload.operationId);
  const contentType = String(upload.headers["content-type"] ?? "");
  if (!/^multipart\/form-data\s*;.*boundary=/i.test(contentType))
    throw new BeaconError(
      "unsupported_media_type",
      `A debug bundle comes as multipart/form-data with the bundle in the part "${DEBUG_BUNDLE_PART}"`,
    );
  if (Number(upload.headers["content-length"] ?? 0) > limit + FORM_OVERHEAD_BYTES)
    throw debugBundleTooLarge(limit);
  const part = await bundlePart(upload.body, { ...upload.headers, "content-type": contentType });
  let received = 0;
  async function* counted() {
    try {
      for await (const chunk of part as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > limit) throw debugBundleTooLarge(limit);
        yield chunk;
      }
    } catch (error) {
      if (error instanceof BeaconError) throw error;
      // The form broke off or was malformed inside the part: the client's doing, not Beacon's.
      throw new BeaconError(
        "invalid_payload",
        `The form ended before the bundle did: ${(error as Error).message}`,
      );
    }
  }
  return intake.store(slot, counted(), () => received);
}

/** The operation id the upload's path names, from its segment as sent; none that cannot be decoded. */
export function bundleOperationId(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw debugBundleNotExpected();
  }
}

/** What an accepted upload is answered with (201). */
export const bundleReceipt = (bundle: DebugBundle) => ({
  operationId: bundle.operationId,
  bytes: bundle.bytes,
  storedAt: new Date(bundle.storedAt).toISOString(),
  expiresAt: new Date(bundle.expiresAt).toISOString(),
});

/**
 * The stream of the form's part `file`, once its headers have arrived; other parts are read past. 400 when the
 * form ends without one, or is not a form at all.
 */
function bundlePart(body: Readable, headers: BundleUpload["headers"]): Promise<Readable> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: headers as Record<string, string>, limits: { files: 1 } });
    } catch (error) {
      reject(new BeaconError("unsupported_media_type", (error as Error).message));
      return;
    }
    let found = false;
    parser.on("file", (name, stream) => {
      if (name !== DEBUG_BUNDLE_PART || found) {
        stream.resume();
        return;
      }
      found = true;
      resolve(stream);
    });
    parser.on("error", (error) => {
      if (!found)
        reject(new BeaconError("invalid_payload", `The form cannot be read: ${(error as Error).message}`));
    });
    parser.on("close", () => {
      if (!found)
        reject(
          new BeaconError(
            "invalid_payload",
            `The form has no part "${DEBUG_BUNDLE_PART}" holding the bundle`,
          ),
        );
    });
    body.pipe(parser);
  });
}

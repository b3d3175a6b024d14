import { createHash } from "node:crypto";
import { BeaconError } from "../errors.js";
import type { LinkDownloadMeter } from "../events/link-downloads.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { Clock, IdGenerator } from "../ports.js";
import { type ConsoleResult, DOWNLOAD_LINK_SECONDS, downloadLink } from "../result.js";
import {
  ASSET_UPLOAD_PART_BYTES,
  ASSET_UPLOAD_TTL_SECONDS,
  type AssetRecord,
  type AssetUploadRecord,
  isAssetId,
  isAssetName,
  isUploadId,
  MAX_ASSET_BYTES,
  MAX_INLINE_ASSET_BYTES,
  signedLinkSeconds,
  uploadPartBytes,
  uploadPartCount,
} from "./model.js";
import type { AssetCatalog, AssetContentStore } from "./ports.js";

export interface AssetsDependencies {
  assets: AssetCatalog;
  content: AssetContentStore;
  clock: Clock;
  ids: IdGenerator;
  meterLinkDownload: LinkDownloadMeter;
  /**
   * How long part URLs are signed for, at most: an hour unless the deployment says less (a test that needs
   * links to expire while an upload is under way).
   */
  uploadLinkSeconds?: number;
}

/** An upload in parts as its caller starts it: what the bytes it will send are. */
export interface AssetUploadStart {
  name?: unknown;
  sizeBytes?: unknown;
  sha256?: unknown;
  contentType?: unknown;
}

/** An upload: the bytes as sent, with the name and media type the request gave them. */
export interface AssetUpload {
  name?: string;
  contentType?: string;
  bytes: Uint8Array;
}

/** A media type `type/subtype`, with parameters. */
const MEDIA_TYPE =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;[\x20-\x7e]*)?$/;
/**
 * Forms are refused: an asset is uploaded as its own bytes, and a form's body is not the file (curl's
 * `--data-binary` without a content type sends the file as application/x-www-form-urlencoded, which
 * API Gateway passes as text, not as the bytes).
 */
const FORM_TYPES = /^(multipart\/|application\/x-www-form-urlencoded)/i;

function mediaTypeOf(contentType: string | undefined): string {
  const value = contentType?.trim() ?? "";
  if (value === "")
    throw new BeaconError(
      "unsupported_media_type",
      "Send the asset's bytes with their Content-Type (application/octet-stream when in doubt)",
    );
  if (FORM_TYPES.test(value))
    throw new BeaconError(
      "unsupported_media_type",
      `An asset is uploaded as its own bytes, not as a form (${value.split(";")[0]}): send it with its own Content-Type, e.g. application/octet-stream`,
    );
  if (value.length > 255 || !MEDIA_TYPE.test(value))
    throw new BeaconError("unsupported_media_type", "The Content-Type is no media type");
  return value;
}

const NAME_RULE =
  "letters, digits, '.', '_' and '-', starting with a letter or digit, no '..', at most 128 characters";

const MiB = (bytes: number) => `${bytes / (1024 * 1024)} MiB`;

export const assetView = (record: AssetRecord) => ({
  assetId: record.assetId,
  name: record.name,
  sizeBytes: record.sizeBytes,
  contentType: record.contentType,
  createdAt: toIso(record.createdAt) as string,
  createdBy: record.createdBy,
  usedBy: [...(record.usedBy ?? [])].sort(),
});

/**
 * The tenant's asset store: content-addressed bytes (S3) and their records (DynamoDB). The bytes go first
 * and the record last, as the commit point: a record always has its bytes. Uploading bytes the tenant has
 * under the same name again writes them again, which repairs bytes a racing delete removed.
 */
export function makeAssetsApi(deps: AssetsDependencies) {
  const { assets, content, clock, ids, uploadLinkSeconds = ASSET_UPLOAD_TTL_SECONDS } = deps;

  async function findAsset(tenant: string, assetId: string): Promise<AssetRecord> {
    const record = isAssetId(assetId) ? await assets.get(tenant, assetId) : undefined;
    if (!record) throw new BeaconError("not_found", "No such asset");
    return record;
  }

  async function findUpload(tenant: string, uploadId: string): Promise<AssetUploadRecord> {
    const upload = isUploadId(uploadId) ? await content.upload(tenant, uploadId) : undefined;
    if (!upload)
      throw new BeaconError("not_found", "No such upload: completed, aborted, expired or never started");
    return upload;
  }

  /**
   * Part URLs for these parts, signed now, and when they stop taking parts: the link lifetime, or sooner when
   * the credentials that sign them expire sooner.
   */
  async function signedParts(tenant: string, upload: AssetUploadRecord, partNumbers: number[]) {
    const now = clock.now();
    const linkSeconds = signedLinkSeconds(now, uploadLinkSeconds, await content.signingCredentialsExpireAt());
    const urls = await content.partUrls(tenant, upload.uploadId, partNumbers, linkSeconds);
    return {
      parts: partNumbers.map((partNumber, index) => ({
        partNumber,
        sizeBytes: uploadPartBytes(upload.sizeBytes, partNumber),
        url: urls[index] as string,
      })),
      expiresAt: toIso(now + linkSeconds * 1000) as string,
    };
  }

  const sameBytes = (existing: AssetRecord) =>
    new BeaconError(
      "asset_exists",
      `These bytes are asset ${existing.assetId} already, named ${existing.name}: nothing to upload`,
    );

  const sameBytesOtherName = (existing: AssetRecord) =>
    new BeaconError(
      "asset_exists",
      `These bytes are asset ${existing.assetId} already, named ${existing.name}: an asset is its bytes, under one name`,
    );

  return {
    async upload(principal: Principal, upload: AssetUpload): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      const name = upload.name ?? "";
      if (!isAssetName(name))
        throw new BeaconError(
          "invalid_request",
          `The asset needs a name (query parameter name): ${NAME_RULE}`,
        );
      const contentType = mediaTypeOf(upload.contentType);
      const { bytes } = upload;
      if (bytes.length === 0)
        throw new BeaconError("invalid_request", "The request needs the asset's bytes as its body");
      if (bytes.length > MAX_INLINE_ASSET_BYTES)
        throw new BeaconError(
          "payload_too_large",
          `An asset sent as one request's body is at most ${MAX_INLINE_ASSET_BYTES} bytes (${MiB(MAX_INLINE_ASSET_BYTES)}): upload a larger one in parts (POST /assets/uploads), up to ${MAX_ASSET_BYTES} bytes (${MiB(MAX_ASSET_BYTES)})`,
        );
      const assetId = createHash("sha256").update(bytes).digest("hex");
      const known = await assets.get(tenant, assetId);
      if (known && known.name !== name) throw sameBytesOtherName(known);
      await content.put(tenant, assetId, bytes, contentType);
      const { record, created } = await assets.add(tenant, {
        assetId,
        name,
        sizeBytes: bytes.length,
        contentType,
        createdAt: clock.now(),
        createdBy: principal.subject,
      });
      if (!created && record.name !== name) throw sameBytesOtherName(record);
      return { status: created ? 201 : 200, body: assetView(record) };
    },

    /**
     * Starts an upload in parts, checked up front (name, media type, size within the limit, SHA-256): its parts
     * go straight to S3 by the presigned URLs it answers with, and nothing is an asset until it completes.
     */
    async startUpload(principal: Principal, start: AssetUploadStart): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      const { name, sizeBytes, sha256 } = start;
      if (typeof name !== "string" || !isAssetName(name))
        throw new BeaconError("invalid_request", `The asset's name: ${NAME_RULE}`);
      const contentType = mediaTypeOf(typeof start.contentType === "string" ? start.contentType : undefined);
      if (typeof sizeBytes !== "number" || !Number.isSafeInteger(sizeBytes) || sizeBytes < 1)
        throw new BeaconError("invalid_request", "sizeBytes is the asset's size in bytes, 1 or more");
      if (sizeBytes > MAX_ASSET_BYTES)
        throw new BeaconError(
          "payload_too_large",
          `An asset is at most ${MAX_ASSET_BYTES} bytes (${MiB(MAX_ASSET_BYTES)}); this one would be ${sizeBytes}`,
        );
      if (typeof sha256 !== "string" || !isAssetId(sha256))
        throw new BeaconError("invalid_request", "sha256 is the bytes' SHA-256 as 64 lower-case hex digits");
      const known = await assets.get(tenant, sha256);
      if (known) throw sameBytes(known);
      const upload: AssetUploadRecord = {
        uploadId: ids.newId(),
        name,
        sizeBytes,
        sha256,
        contentType,
        createdAt: clock.now(),
        createdBy: principal.subject,
      };
      await content.startUpload(tenant, upload);
      const partNumbers = Array.from({ length: uploadPartCount(sizeBytes) }, (_, index) => index + 1);
      const { parts, expiresAt } = await signedParts(tenant, upload, partNumbers);
      return {
        status: 201,
        body: {
          uploadId: upload.uploadId,
          name,
          sizeBytes,
          sha256,
          contentType,
          partBytes: ASSET_UPLOAD_PART_BYTES,
          parts,
          expiresAt,
        },
      };
    },

    /**
     * Fresh URLs for parts of an upload under way that are still to be sent: the ones it started with may have
     * expired, or the credentials that signed them rotated, before a slow caller sent every part.
     */
    async signParts(
      principal: Principal,
      uploadId: string,
      request: { partNumbers?: unknown },
    ): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      const upload = await findUpload(tenant, uploadId);
      const count = uploadPartCount(upload.sizeBytes);
      const { partNumbers } = request;
      const isPartNumber = (value: unknown): value is number =>
        typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= count;
      if (!Array.isArray(partNumbers) || partNumbers.length === 0 || !partNumbers.every(isPartNumber))
        throw new BeaconError(
          "invalid_request",
          `partNumbers lists the parts to sign again, each a number from 1 to ${count}: the upload has ${count} part${count === 1 ? "" : "s"}`,
        );
      if (new Set(partNumbers).size !== partNumbers.length)
        throw new BeaconError("invalid_request", "partNumbers names each part once");
      return { body: { uploadId, ...(await signedParts(tenant, upload, partNumbers)) } };
    },

    /**
     * Completes an upload: every part there, at the sizes the upload's size makes, then the joined bytes read
     * whole for their real size and SHA-256. Only bytes that are what was declared become the asset (the record
     * is the commit point); other bytes are removed with the upload, and the caller is told what differed.
     */
    async completeUpload(principal: Principal, uploadId: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      const upload = await findUpload(tenant, uploadId);
      const expected = uploadPartCount(upload.sizeBytes);
      const parts = await content.uploadedParts(tenant, uploadId);
      const wrong = parts.filter(
        ({ partNumber, sizeBytes }) =>
          partNumber > expected || sizeBytes !== uploadPartBytes(upload.sizeBytes, partNumber),
      );
      if (wrong.length > 0) {
        await content.abortUpload(tenant, uploadId);
        throw new BeaconError(
          "asset_upload_mismatch",
          `The upload is removed: ${wrong.map((part) => `part ${part.partNumber} has ${part.sizeBytes} bytes`).join(", ")}, where an upload of ${upload.sizeBytes} bytes has ${expected} parts of ${ASSET_UPLOAD_PART_BYTES} bytes (the last one the rest)`,
        );
      }
      const sent = new Set(parts.map((part) => part.partNumber));
      const missing = Array.from({ length: expected }, (_, index) => index + 1).filter((n) => !sent.has(n));
      if (missing.length > 0)
        throw new BeaconError(
          "asset_upload_incomplete",
          `Part${missing.length === 1 ? "" : "s"} ${missing.join(", ")} of ${expected} ${missing.length === 1 ? "is" : "are"} not uploaded yet: PUT ${missing.length === 1 ? "it" : "them"}, then complete again`,
        );
      const real = await content.assemble(tenant, uploadId);
      if (real.sizeBytes !== upload.sizeBytes || real.sha256 !== upload.sha256) {
        await content.abortUpload(tenant, uploadId);
        throw new BeaconError(
          "asset_upload_mismatch",
          `The upload is removed, nothing is stored: its bytes are ${real.sizeBytes} with SHA-256 ${real.sha256}, not the ${upload.sizeBytes} with SHA-256 ${upload.sha256} it was started with`,
        );
      }
      const known = await assets.get(tenant, upload.sha256);
      if (known) {
        await content.abortUpload(tenant, uploadId);
        if (known.name !== upload.name) throw sameBytesOtherName(known);
        return { status: 200, body: assetView(known) };
      }
      await content.promote(tenant, uploadId, upload.sha256, upload.contentType);
      const { record, created } = await assets.add(tenant, {
        assetId: upload.sha256,
        name: upload.name,
        sizeBytes: upload.sizeBytes,
        contentType: upload.contentType,
        createdAt: clock.now(),
        createdBy: principal.subject,
      });
      if (!created && record.name !== upload.name) throw sameBytesOtherName(record);
      return { status: created ? 201 : 200, body: assetView(record) };
    },

    /** Abandons an upload: its parts and staged bytes are removed, and nothing is stored. */
    async abortUpload(principal: Principal, uploadId: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      await findUpload(principal.tenant, uploadId);
      await content.abortUpload(principal.tenant, uploadId);
      return { body: { uploadId, aborted: true } };
    },

    async list(principal: Principal, request: { cursor?: string; limit?: number }): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const page = await assets.list(principal.tenant, pageRequestOf(request, isAssetId));
      return { body: pageBodyOf(page, assetView) };
    },

    async get(principal: Principal, assetId: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      return { body: assetView(await findAsset(principal.tenant, assetId)) };
    },

    /**
     * A short-lived link to the asset's bytes in storage, with the media type they were uploaded with and saved
     * under the asset's name: an asset may be 100 MiB, far more than a Lambda answer carries. Each link is
     * metered as a download of the whole asset.
     */
    async content(
      principal: Principal,
      assetId: string,
      options: { redirect?: boolean } = {},
    ): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const { tenant } = principal;
      const record = await findAsset(tenant, assetId);
      const location = await content.downloadUrl(
        tenant,
        assetId,
        { fileName: record.name, contentType: record.contentType },
        DOWNLOAD_LINK_SECONDS,
      );
      await deps.meterLinkDownload(tenant, "asset", record.sizeBytes, clock.now());
      return downloadLink(location, options);
    },

    /** Deletes the asset unless a class's resource set holds it: agents would be sent bytes that are gone. */
    async delete(principal: Principal, assetId: string): Promise<ConsoleResult> {
      requireRole(principal, "operator");
      const { tenant } = principal;
      const record = await findAsset(tenant, assetId);
      const outcome = await assets.remove(tenant, assetId);
      if (outcome === "absent") throw new BeaconError("not_found", "No such asset");
      if (outcome === "in_use") {
        const usedBy = (await assets.get(tenant, assetId))?.usedBy ?? record.usedBy ?? [];
        throw new BeaconError(
          "asset_in_use",
          `The resource set of ${usedBy.length === 1 ? "class" : "classes"} ${[...usedBy].sort().join(", ")} holds the asset: take it out first`,
        );
      }
      await content.remove(tenant, assetId);
      return { body: assetView({ ...record, usedBy: [] }) };
    },
  };
}

import { createHash } from "node:crypto";
import { BeaconError } from "../errors.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { pageBodyOf, pageRequestOf, toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import { type AssetRecord, isAssetId, isAssetName, MAX_ASSET_BYTES } from "./model.js";
import type { AssetCatalog, AssetContentStore } from "./ports.js";

export interface AssetsDependencies {
  assets: AssetCatalog;
  content: AssetContentStore;
  clock: Clock;
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
  const { assets, content, clock } = deps;

  async function findAsset(tenant: string, assetId: string): Promise<AssetRecord> {
    const record = isAssetId(assetId) ? await assets.get(tenant, assetId) : undefined;
    if (!record) throw new BeaconError("not_found", "No such asset");
    return record;
  }

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
          "The asset needs a name (query parameter name): letters, digits, '.', '_' and '-', starting with a letter or digit, no '..', at most 128 characters",
        );
      const contentType = mediaTypeOf(upload.contentType);
      const { bytes } = upload;
      if (bytes.length === 0)
        throw new BeaconError("invalid_request", "The request needs the asset's bytes as its body");
      if (bytes.length > MAX_ASSET_BYTES)
        throw new BeaconError("payload_too_large", `An asset is at most ${MAX_ASSET_BYTES} bytes (4 MiB)`);
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

    async list(principal: Principal, request: { cursor?: string; limit?: number }): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const page = await assets.list(principal.tenant, pageRequestOf(request, isAssetId));
      return { body: pageBodyOf(page, assetView) };
    },

    async get(principal: Principal, assetId: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      return { body: assetView(await findAsset(principal.tenant, assetId)) };
    },

    /** The asset's bytes, exactly as uploaded, with the media type they were uploaded with. */
    async content(principal: Principal, assetId: string): Promise<ConsoleResult> {
      requireRole(principal, "viewer");
      const { tenant } = principal;
      const record = await findAsset(tenant, assetId);
      // The record is the commit point of an upload, the bytes go first: only a racing delete leaves none.
      const stored = await content.read(tenant, assetId);
      if (!stored) throw new BeaconError("not_found", "No such asset");
      return { body: stored.bytes, contentType: record.contentType };
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

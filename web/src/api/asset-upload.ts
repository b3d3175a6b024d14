/**
 * How the browser sends an asset's bytes, with progress: today one `POST /assets` whose body is the bytes,
 * through XMLHttpRequest, whose upload reports how much it sent (fetch does not). The Assets page knows only
 * `AssetTransport`, so a transport that sends the bytes elsewhere (to storage, in parts, through links the
 * API hands out) takes this one's place without the page changing.
 */
import { apiError, type Schemas } from "./client";
import type { paths } from "./schema";

const ASSETS_PATH = "/api/v1/assets" satisfies keyof paths;

export interface UploadProgress {
  sent: number;
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

/** The bytes as the body of `POST /assets?name=`, with the session's token; a 401 signs the session out. */
export function directAssetUpload(token: string, onUnauthorized: () => void): AssetTransport {
  return (file, name, onProgress) =>
    new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      const url = new URL(ASSETS_PATH, window.location.origin);
      url.searchParams.set("name", name);
      request.open("POST", url);
      request.setRequestHeader("authorization", `Bearer ${token}`);
      request.setRequestHeader("content-type", file.type || "application/octet-stream");
      request.upload.onprogress = (event) =>
        onProgress({ sent: event.loaded, total: event.lengthComputable ? event.total : file.size });
      request.onerror = () => reject(new Error("The upload did not reach the console API"));
      request.onload = () => {
        const body = parsed(request.responseText);
        if (request.status === 200 || request.status === 201) {
          resolve({ asset: body as Schemas["Asset"], created: request.status === 201 });
          return;
        }
        if (request.status === 401) onUnauthorized();
        reject(
          apiError(new Response(null, { status: request.status, statusText: request.statusText }), body),
        );
      };
      request.send(file);
    });
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

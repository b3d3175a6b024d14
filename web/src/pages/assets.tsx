import { useMemo, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { MAX_ASSET_BYTES } from "../../../functions/core/assets/model.js";
import { type AssetTransport, presignedAssetUpload, type UploadProgress } from "../api/asset-upload";
import { dataOf, type Schemas } from "../api/client";
import { assetNameProblem, suggestedAssetName } from "../asset-name";
import { assetSizeProblem } from "../asset-parts";
import { ConfirmedAction } from "../components/confirmed-action";
import { useConsole } from "../components/console";
import { Page } from "../components/page";
import {
  Loaded,
  Pager,
  SubmitRow,
  TableFrame,
  TableHead,
  useAction,
  useResource,
} from "../components/resource";
import { byteSize, dateTime, shortHash } from "../format";
import { mayCall } from "../session";

const PAGE_SIZE = 50;

/** The tenant's assets: files that classes' resource sets send their agents. */
export function Assets() {
  const { client, session } = useConsole();
  const { query } = useLocation();
  const cursor = query.cursor || undefined;
  const [assets, reload] = useResource(
    () => dataOf(client.GET("/api/v1/assets", { params: { query: { cursor, limit: PAGE_SIZE } } })),
    `assets ${cursor}`,
  );
  const transport = useMemo(() => presignedAssetUpload(client), [client]);
  return (
    <Page title="Assets">
      <p>
        Files a class's agents keep in their asset directory (certificate bundles, lookup tables, models): a
        class's page says which of them its agents get, and Beacon sends them with SYNC RESOURCE. An asset is
        its bytes: its id is their SHA-256.
      </p>
      {mayCall(session, "POST /api/v1/assets/uploads") && (
        <UploadAsset transport={transport} onUploaded={reload} />
      )}
      <h2>The tenant's assets</h2>
      <Loaded resource={assets} what="assets" reload={reload}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="empty">No asset yet.</p>
          ) : (
            <>
              <AssetTable assets={page.items} onDeleted={reload} />
              <Pager
                label="Pages of assets"
                cursor={cursor}
                nextCursor={page.nextCursor}
                urlOf={(next) => (next ? `/assets?${new URLSearchParams({ cursor: next })}` : "/assets")}
              />
            </>
          )
        }
      </Loaded>
    </Page>
  );
}

/**
 * Picks a file, names it (its own name, when that is one an asset may have), and sends it with progress: first
 * read for its SHA-256, then its parts sent. A file over the limit is refused before anything is read or sent.
 */
function UploadAsset(props: { transport: AssetTransport; onUploaded: () => void }) {
  const [state, run] = useAction();
  const [progress, setProgress] = useState<UploadProgress>();
  const [name, setName] = useState("");
  const [notice, setNotice] = useState<string>();
  const [problem, setProblem] = useState<string>();

  async function submit(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const file = new FormData(form).get("file");
    const chosen = name.trim();
    const found =
      !(file instanceof File) || file.size === 0
        ? "Pick a file that is not empty."
        : (assetSizeProblem(file.name, file.size) ?? assetNameProblem(chosen));
    setProblem(found);
    setNotice(undefined);
    if (found !== undefined || !(file instanceof File)) return;
    setProgress({ stage: "hashing", done: 0, total: file.size });
    const uploaded = await run(() => props.transport(file, chosen, setProgress));
    if (uploaded) {
      const { asset, created } = uploaded;
      setNotice(
        created
          ? `Stored ${asset.name} (${byteSize(asset.sizeBytes)}) as ${shortHash(asset.assetId)}.`
          : `The tenant had ${asset.name} already, with the same bytes.`,
      );
      form.reset();
      setName("");
      props.onUploaded();
    } else {
      setProgress(undefined);
    }
  }

  const busy = state.status === "busy";
  return (
    <details class="panel" open>
      <summary>Upload an asset</summary>
      <form class="stacked" onSubmit={submit} noValidate>
        <label>
          File
          <input
            name="file"
            type="file"
            required
            onChange={(event) => setName(suggestedAssetName(event.currentTarget.files?.[0]?.name ?? ""))}
          />
        </label>
        <label>
          Name agents keep it under
          <input name="name" value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        <p class="hint">
          A file name: letters, digits, <code>.</code> <code>_</code> <code>-</code>, starting with a letter
          or digit. An asset is at most {byteSize(MAX_ASSET_BYTES)}.
        </p>
        {progress && (
          <label>
            {progressLabel(progress, busy)} {byteSize(progress.done)} of {byteSize(progress.total)}
            <progress max={progress.total} value={progress.done} />
          </label>
        )}
        {problem && (
          <p class="problem" role="alert">
            {problem}
          </p>
        )}
        <SubmitRow state={state} label="Upload" busyLabel="Uploading…" notice={notice} />
      </form>
    </details>
  );
}

function progressLabel(progress: UploadProgress, busy: boolean): string {
  if (progress.stage === "hashing") return busy ? "Reading for its SHA-256:" : "Read";
  return busy ? "Uploading" : "Uploaded";
}

function AssetTable(props: { assets: Schemas["Asset"][]; onDeleted: () => void }) {
  const { client, session } = useConsole();
  const mayDelete = mayCall(session, "DELETE /api/v1/assets/{assetId}");
  return (
    <TableFrame label="Assets">
      <table>
        <TableHead
          columns={[
            "Name",
            "Id",
            "Size",
            "Type",
            "In the resource sets of",
            "Uploaded",
            ...(mayDelete ? [{ hidden: "Delete" }] : []),
          ]}
        />
        <tbody>
          {props.assets.map((asset) => (
            <tr key={asset.assetId}>
              <td>{asset.name}</td>
              <td class="mono" title={asset.assetId}>
                {shortHash(asset.assetId)}
              </td>
              <td>{byteSize(asset.sizeBytes)}</td>
              <td>{asset.contentType}</td>
              <td>
                {asset.usedBy.length === 0
                  ? "no class"
                  : asset.usedBy.map((className, index) => (
                      <span key={className}>
                        {index > 0 && ", "}
                        <a href={`/classes/${encodeURIComponent(className)}#resources`}>{className}</a>
                      </span>
                    ))}
              </td>
              <td>
                {dateTime(asset.createdAt)} by {asset.createdBy}
              </td>
              {mayDelete && (
                <td>
                  <ConfirmedAction
                    ask="Delete…"
                    confirm={`Delete ${asset.name}`}
                    keep="Keep it"
                    warning={
                      asset.usedBy.length > 0
                        ? "A class's resource set holds it: take it out of those sets first, or Beacon refuses."
                        : "Its bytes are deleted; agents that hold a copy keep theirs."
                    }
                    act={() =>
                      dataOf(
                        client.DELETE("/api/v1/assets/{assetId}", {
                          params: { path: { assetId: asset.assetId } },
                        }),
                      )
                    }
                    onDone={props.onDeleted}
                  />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

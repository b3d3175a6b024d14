import { useState } from "preact/hooks";
import { ApiError, dataOf, type Schemas } from "../api/client";
import { byteSize, dateTime, shortHash } from "../format";
import { mayCall } from "../session";
import { useConsole } from "./console";
import { Loaded, SubmitRow, TableFrame, TableHead, useAction, useResource } from "./resource";

/** How many of the tenant's assets the form offers: a resource set holds at most 40. */
const OFFERED_ASSETS = 100;

/**
 * The class's resource set (the assets its agents keep) and, for an operator who may list the tenant's assets,
 * a form that changes it: saving queues a SYNC RESOURCE for each of the class's agents that lacks the set.
 */
export function ClassResources(props: { className: string }) {
  const { client, session } = useConsole();
  const { className } = props;
  const path = { className };
  const [resourceSet, reload] = useResource(
    () =>
      dataOf(client.GET("/api/v1/classes/{className}/resources", { params: { path } })).catch((error) => {
        // A class gets a set when one is first saved.
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      }),
    `resources ${className}`,
  );
  const mayChange =
    mayCall(session, "PUT /api/v1/classes/{className}/resources") && mayCall(session, "GET /api/v1/assets");
  return (
    <section aria-labelledby="resources">
      <h2 id="resources">Resource set</h2>
      <Loaded resource={resourceSet} what="the class's resource set" reload={reload}>
        {(set) => (
          <>
            {set === undefined || set.items.length === 0 ? (
              <p class="empty">The class's agents get no asset from Beacon.</p>
            ) : (
              <>
                <p>
                  The assets the class's agents keep, set {dateTime(set.updatedAt)} by {set.updatedBy}; agents
                  holding them report the set's digest <span class="mono">{shortHash(set.digest)}</span>.
                </p>
                <TableFrame label="The class's resource set">
                  <table>
                    <TableHead columns={["Asset", "Folder", "Id"]} />
                    <tbody>
                      {set.items.map((item) => (
                        <tr key={item.assetId}>
                          <td>{item.name}</td>
                          <td>{item.path === "" ? "the asset directory" : item.path}</td>
                          <td class="mono" title={item.assetId}>
                            {shortHash(item.assetId)}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableFrame>
              </>
            )}
            {mayChange && <ChangeResourceSet className={className} current={set} onSaved={reload} />}
          </>
        )}
      </Loaded>
    </section>
  );
}

function ChangeResourceSet(props: {
  className: string;
  current: Schemas["ResourceSet"] | undefined;
  onSaved: () => void;
}) {
  const { client } = useConsole();
  const [assets, reload] = useResource(
    () => dataOf(client.GET("/api/v1/assets", { params: { query: { limit: OFFERED_ASSETS } } })),
    "assets offered",
  );
  const [state, run] = useAction();
  const [notice, setNotice] = useState<string>();
  const held = new Map(props.current?.items.map((item) => [item.assetId, item.path]));

  async function submit(event: Event) {
    event.preventDefault();
    const fields = new FormData(event.currentTarget as HTMLFormElement);
    const items = fields.getAll("asset").map((assetId) => {
      const folder = String(fields.get(`path-${String(assetId)}`) ?? "").trim();
      return { assetId: String(assetId), ...(folder ? { path: folder } : {}) };
    });
    const pushed = await run(() =>
      dataOf(
        client.PUT("/api/v1/classes/{className}/resources", {
          params: { path: { className: props.className } },
          body: { items },
        }),
      ),
    );
    if (pushed) {
      const queued = pushed.created ?? pushed.operations.length;
      const skipped = pushed.skippedCount ?? pushed.skipped.length;
      setNotice(
        `Saved ${items.length} asset${items.length === 1 ? "" : "s"}: SYNC RESOURCE queued for ${queued} agent${queued === 1 ? "" : "s"}` +
          (skipped > 0 ? `, ${skipped} that cannot take it skipped.` : "."),
      );
      props.onSaved();
    }
  }

  return (
    <details class="panel">
      <summary>Change the resource set</summary>
      <Loaded resource={assets} what="the tenant's assets" reload={reload}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="empty">
              The tenant has no asset: <a href="/assets">upload one</a> first.
            </p>
          ) : (
            <form class="stacked" onSubmit={submit}>
              <fieldset>
                <legend>Assets the class's agents get</legend>
                {page.items.map((asset) => (
                  <div key={asset.assetId} class="asset-choice">
                    <label class="inline">
                      <input
                        type="checkbox"
                        name="asset"
                        value={asset.assetId}
                        defaultChecked={held.has(asset.assetId)}
                      />
                      {asset.name} ({byteSize(asset.sizeBytes)}, {shortHash(asset.assetId)})
                    </label>
                    <label>
                      Folder for {asset.name} (optional)
                      <input name={`path-${asset.assetId}`} defaultValue={held.get(asset.assetId) ?? ""} />
                    </label>
                  </div>
                ))}
              </fieldset>
              <p class="hint">
                Agents download what they lack over mutual TLS and delete what the set no longer lists. A
                folder is relative to the agent's asset directory.
              </p>
              <SubmitRow
                state={state}
                label="Save and push to the agents"
                busyLabel="Saving…"
                notice={notice}
              />
            </form>
          )
        }
      </Loaded>
    </details>
  );
}

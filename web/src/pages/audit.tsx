import { useLocation } from "preact-iso";
import { dataOf, type Schemas } from "../api/client";
import { Clipped } from "../components/clipped";
import { useConsole } from "../components/console";
import { Page } from "../components/page";
import { Loaded, Pager, TableFrame, TableHead, useResource } from "../components/resource";
import { dateTime } from "../format";

/** The trail's filters as the URL carries them, named as the API's query parameters. */
const FILTERS = ["actor", "operation"] as const;
const PAGE_SIZE = 50;

type Query = Record<string, string | undefined>;

function filterParams(query: Query, extra: Query = {}): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ actor: query.actor, operation: query.operation, ...extra })) {
    if (value) params.set(name, value);
  }
  return params;
}

const listUrl = (query: Query, extra: Query = {}) => {
  const params = filterParams(query, extra).toString();
  return params ? `/audit?${params}` : "/audit";
};

/** The tenant's audit trail, newest first: every change asked of the console, refusals included. */
export function Audit() {
  const { client } = useConsole();
  const location = useLocation();
  const { query } = location;
  const search = filterParams(query, { cursor: query.cursor }).toString();
  const [records, reload] = useResource(
    () =>
      dataOf(
        client.GET("/api/v1/audit", {
          params: {
            query: {
              actor: query.actor || undefined,
              operation: query.operation || undefined,
              cursor: query.cursor || undefined,
              limit: PAGE_SIZE,
            },
          },
        }),
      ),
    search,
  );
  const filtered = FILTERS.some((name) => query[name]);

  function applyFilters(event: Event) {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    location.route(
      listUrl(Object.fromEntries(FILTERS.map((name) => [name, String(form.get(name) ?? "").trim()]))),
    );
  }

  return (
    <Page title="Audit trail">
      {/* Keyed by the URL's query, so Back and shared links fill the form in too. */}
      <form key={search} class="filters" onSubmit={applyFilters} aria-label="Filter the audit trail">
        <label>
          Who (token subject)
          <input name="actor" defaultValue={query.actor ?? ""} maxLength={256} />
        </label>
        <label>
          Operation
          <input
            name="operation"
            defaultValue={query.operation ?? ""}
            maxLength={64}
            placeholder="putClass"
          />
        </label>
        <div class="form-actions">
          <button type="submit">Apply filters</button>
          {filtered && <a href="/audit">Clear filters</a>}
        </div>
      </form>
      <Loaded resource={records} what="the audit trail" reload={reload}>
        {(page) => (
          <>
            {page.items.length === 0 ? (
              <p class="empty">
                {filtered || query.cursor
                  ? "No record on this page matches these filters; a later page may. Loosen or clear them."
                  : "No change yet. Every change asked of the console, by anyone of this tenant, is recorded here."}
              </p>
            ) : (
              <AuditTable records={page.items} />
            )}
            <Pager
              label="Pages of the audit trail"
              cursor={query.cursor}
              nextCursor={page.nextCursor}
              urlOf={(cursor) => listUrl(query, cursor ? { cursor } : {})}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

const targetOf = (target: Record<string, string>) =>
  Object.entries(target)
    .map(([name, value]) => `${name} ${value}`)
    .join(", ") || "—";

/**
 * Six columns, so that a desktop width shows them all: where a request came from sits under who made it, and
 * its id (cut, whole in its tooltip) under when.
 */
function AuditTable({ records }: { records: Schemas["AuditRecord"][] }) {
  return (
    <TableFrame label="Audit records">
      <table class="audit">
        <TableHead columns={["When", "Who", "Operation", "Answer", "Target", "Summary"]} />
        <tbody>
          {records.map((record) => (
            <tr key={record.requestId}>
              <td>
                {dateTime(record.at)}
                <div class="muted">
                  request <Clipped text={record.requestId} mono />
                </div>
              </td>
              <td class="wrap">
                {record.actor.subject}
                <div class="muted">
                  {record.actor.role}
                  {record.sourceIp && ` from ${record.sourceIp}`}
                </div>
                {record.userAgent && (
                  <div class="muted">
                    <Clipped text={record.userAgent} />
                  </div>
                )}
              </td>
              <td class="wrap">
                {record.operationId}
                <div class="muted mono">
                  {record.method} {record.route}
                </div>
              </td>
              <td>
                <span class={`state state-${record.status < 400 ? "done" : "failed"}`}>{record.status}</span>
                {record.errorCode && <div class="muted">{record.errorCode}</div>}
              </td>
              <td class="mono wrap">{targetOf(record.target)}</td>
              <td class="mono wrap">{record.summary ? JSON.stringify(record.summary) : "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

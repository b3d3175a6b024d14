import { useLocation } from "preact-iso";
import { dataOf } from "../api/client";
import { AgentTable } from "../components/agent-table";
import { LISTED_REASONS, type ListedReason, REASON_NAMES } from "../components/attention";
import { Choice } from "../components/choice";
import { ClassField } from "../components/class-field";
import { useConsole } from "../components/console";
import { Page } from "../components/page";
import { Loaded, Pager, useResource } from "../components/resource";

/** The agent list's filters as the URL carries them, named as the API's query parameters. */
const FILTERS = [
  "class",
  "status",
  "attention",
  "seen",
  "q",
  "label",
  "manifestHash",
  "manifestId",
  "flowId",
  "sort",
] as const;
const PAGE_SIZE = 50;
const DEFAULT_SORT = "agentId";
const STATUS_CHOICES = [
  ["", "any"],
  ["online", "online"],
  ["offline", "offline"],
] as const;
const ATTENTION_CHOICES = [
  ["", "—"],
  ["any", "any reason"],
  ...LISTED_REASONS.map((reason) => [reason, REASON_NAMES[reason]] as const),
] as const;
const isListedReason = (value: string | undefined): value is ListedReason =>
  LISTED_REASONS.includes(value as ListedReason);
/** "Seen within": the URL keeps the window, and each request asks for agents seen since its own now. */
const SEEN_WINDOWS_MS: Record<string, number> = { "5m": 5 * 60_000, "1h": 3600_000, "1d": 86_400_000 };
const SEEN_CHOICES = [
  ["", "any time"],
  ["5m", "the last 5 minutes"],
  ["1h", "the last hour"],
  ["1d", "the last day"],
] as const;
const SORT_CHOICES = [
  ["agentId", "agent id, A to Z"],
  ["-agentId", "agent id, Z to A"],
] as const;

type Query = Record<string, string | undefined>;

function seenSince(window: string | undefined): string | undefined {
  const span = window === undefined ? undefined : SEEN_WINDOWS_MS[window];
  return span === undefined ? undefined : new Date(Date.now() - span).toISOString();
}

/** The filters that are set, in the URL's form; the default order goes without saying. */
function filterParams(query: Query, extra: Query = {}): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...pick(query, FILTERS), ...extra })) {
    if (value && !(name === "sort" && value === DEFAULT_SORT)) params.set(name, value);
  }
  return params;
}

function pick(query: Query, names: readonly string[]): Query {
  return Object.fromEntries(names.map((name) => [name, query[name]]));
}

export function Agents() {
  const { client } = useConsole();
  const location = useLocation();
  const { query } = location;
  const search = filterParams(query, { cursor: query.cursor }).toString();
  const [agents, reload] = useResource(
    () =>
      dataOf(
        client.GET("/api/v1/agents", {
          params: {
            query: {
              class: query.class || undefined,
              status: query.status === "online" || query.status === "offline" ? query.status : undefined,
              attention:
                query.attention === "any" || isListedReason(query.attention) ? query.attention : undefined,
              q: query.q || undefined,
              label: query.label || undefined,
              manifestHash: query.manifestHash || undefined,
              manifestId: query.manifestId || undefined,
              flowId: query.flowId || undefined,
              lastSeenAfter: seenSince(query.seen),
              sort: query.sort === "-agentId" ? "-agentId" : "agentId",
              cursor: query.cursor || undefined,
              limit: PAGE_SIZE,
            },
          },
        }),
      ),
    search,
  );
  const filtered = FILTERS.some((name) => name !== "sort" && query[name]);

  function applyFilters(event: Event) {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const values = Object.fromEntries(FILTERS.map((name) => [name, String(form.get(name) ?? "").trim()]));
    const params = filterParams(values).toString();
    location.route(params ? `/agents?${params}` : "/agents");
  }

  return (
    <Page title="Agents">
      {/* Keyed by the URL's query, so Back and shared links fill the form in too. */}
      <form key={search} class="filters" onSubmit={applyFilters} aria-label="Filter agents">
        <label>
          Agent id or hostname contains
          <input name="q" defaultValue={query.q ?? ""} maxLength={128} />
        </label>
        <label>
          Labels (key=value or key, commas between)
          <input name="label" defaultValue={query.label ?? ""} placeholder="site=plant-7,gpu" />
        </label>
        <ClassField name="class" value={query.class ?? ""} />
        <Choice label="Status" name="status" initial={query.status ?? ""} options={STATUS_CHOICES} />
        <Choice
          label="Needs attention for"
          name="attention"
          initial={query.attention ?? ""}
          options={ATTENTION_CHOICES}
        />
        <Choice label="Seen within" name="seen" initial={query.seen ?? ""} options={SEEN_CHOICES} />
        <label>
          Manifest hash
          <input name="manifestHash" defaultValue={query.manifestHash ?? ""} />
        </label>
        <label>
          Binary id
          <input name="manifestId" defaultValue={query.manifestId ?? ""} />
        </label>
        <label>
          Flow id
          <input name="flowId" defaultValue={query.flowId ?? ""} />
        </label>
        <Choice label="Order" name="sort" initial={query.sort ?? DEFAULT_SORT} options={SORT_CHOICES} />
        <div class="form-actions">
          <button type="submit">Apply filters</button>
          {filtered && <a href="/agents">Clear filters</a>}
        </div>
      </form>
      <Loaded resource={agents} what="agents" reload={reload}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="empty">
              {filtered || query.cursor
                ? "No agent matches these filters. Loosen or clear them."
                : "No agent has reported yet. Agents appear here at their first heartbeat: point one at the agent API, or run npm run agents beside npm start."}
            </p>
          ) : (
            <>
              <AgentTable label="Agents" agents={page.items} />
              <Pager
                label="Pages of agents"
                cursor={query.cursor}
                nextCursor={page.nextCursor}
                urlOf={(cursor) => `/agents?${filterParams(query, cursor ? { cursor } : {})}`}
              />
            </>
          )
        }
      </Loaded>
    </Page>
  );
}

import { useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { type ConsoleClient, dataOf, type Schemas } from "../api/client";
import { AgentTable } from "../components/agent-table";
import { ConfirmedAction } from "../components/confirmed-action";
import { useConsole } from "../components/console";
import { Fact } from "../components/fact";
import { MaintenanceWindowsForm, windowLine } from "../components/maintenance-windows";
import { Page } from "../components/page";
import {
  ActionProblem,
  Loaded,
  Pager,
  SubmitRow,
  TableFrame,
  TableHead,
  useAction,
  useResource,
} from "../components/resource";
import { dateTime, timeAgo } from "../format";
import { mayCall } from "../session";

const PAGE_SIZE = 25;
const MEMBERS_PAGE_SIZE = 50;
/** What the query field offers to start from: the agents that can run PublishKafka 1.x. */
const EXAMPLE_QUERY = JSON.stringify(
  {
    components: [
      {
        kind: "processor",
        type: "org.apache.nifi.minifi.processors.PublishKafka",
        version: { atLeast: "1.0.0", below: "2.0.0" },
      },
    ],
  },
  null,
  2,
);

const withCursor = (base: string, cursor?: string) =>
  cursor ? `${base}?${new URLSearchParams({ cursor }).toString()}` : base;
const groupUrl = (name: string) => `/groups/${encodeURIComponent(name)}`;

/** The query as a person wrote it in the form's field: JSON, an object, or the reason it is not. */
function queryOf(text: string): Schemas["GroupQuery"] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`The query is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new Error("The query is a JSON object of criteria, {} for every agent.");
  return parsed as Schemas["GroupQuery"];
}

/** A field of the group's form, trimmed. */
const fieldOf = (fields: FormData, name: string) => String(fields.get(name) ?? "").trim();

/**
 * Replaces the group's definition with the change: PUT replaces it whole, so what the change leaves out
 * (its settings when the query changes, its query when a setting does) is sent as the group has it.
 */
const changeGroup = (
  client: ConsoleClient,
  group: Schemas["Group"],
  change: Partial<Schemas["GroupDefinition"]>,
) =>
  dataOf(
    client.PUT("/api/v1/groups/{groupName}", {
      params: { path: { groupName: group.name } },
      body: {
        description: group.description,
        query: group.query,
        requireApproval: group.requireApproval,
        maintenanceWindows: group.maintenanceWindows,
        ...change,
      },
    }),
  );

/** What the group's form says: its description and its query. */
const definitionOf = (fields: FormData): Schemas["GroupDefinition"] => ({
  description: fieldOf(fields, "description") || undefined,
  query: queryOf(fieldOf(fields, "query")),
});

/**
 * A group's members as the last counting pass found them, and how long ago; "counting" for a group created or
 * changed since, which the next pass counts.
 */
function CountedMembers(props: { group: Schemas["Group"] }) {
  const { memberCount, countedAt } = props.group;
  if (memberCount === undefined) return <span class="muted">counting</span>;
  return (
    <>
      <strong>{memberCount}</strong>
      {countedAt && <span class="muted"> counted {timeAgo(countedAt)}</span>}
    </>
  );
}

/** The tenant's groups: saved queries over its agents, each with its members' count by the last counting pass. */
export function Groups() {
  const { client, session } = useConsole();
  const location = useLocation();
  const cursor = location.query.cursor || undefined;
  const [groups, reload] = useResource(
    () => dataOf(client.GET("/api/v1/groups", { params: { query: { cursor, limit: PAGE_SIZE } } })),
    cursor ?? "",
  );
  return (
    <Page title="Groups">
      {mayCall(session, "POST /api/v1/groups") && (
        <CreateGroup onCreated={(group) => location.route(groupUrl(group.name))} />
      )}
      <Loaded resource={groups} what="groups" reload={reload}>
        {(page) => (
          <>
            {page.items.length === 0 ? (
              <p class="empty">
                No group yet. A group is a saved query over your agents (their class, labels, binary and what
                it can run, flow, device, presence); its members are whoever matches when you look.
              </p>
            ) : (
              <TableFrame label="Groups">
                <table>
                  <TableHead columns={["Group", "Members", "Query", "Updated"]} />
                  <tbody>
                    {page.items.map((group) => (
                      <tr key={group.name}>
                        <td>
                          <a href={groupUrl(group.name)}>{group.name}</a>
                          {group.description && <div class="muted">{group.description}</div>}
                        </td>
                        <td>
                          <CountedMembers group={group} />
                        </td>
                        <td class="mono">{JSON.stringify(group.query)}</td>
                        <td>{dateTime(group.updatedAt)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableFrame>
            )}
            <Pager
              label="Pages of groups"
              cursor={cursor}
              nextCursor={page.nextCursor}
              urlOf={(next) => withCursor("/groups", next)}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

function CreateGroup(props: { onCreated: (group: Schemas["Group"]) => void }) {
  const { client } = useConsole();
  const [state, run] = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    const fields = new FormData(event.currentTarget as HTMLFormElement);
    const created = await run(() =>
      dataOf(
        client.POST("/api/v1/groups", { body: { name: fieldOf(fields, "name"), ...definitionOf(fields) } }),
      ),
    );
    if (created) props.onCreated(created);
  }
  return (
    <details class="panel">
      <summary>Create a group</summary>
      <form onSubmit={submit} class="stacked">
        <label>
          Name
          <input name="name" required maxLength={128} pattern="[A-Za-z0-9._\-]{1,128}" autoComplete="off" />
        </label>
        <label>
          Description (optional)
          <input name="description" maxLength={512} autoComplete="off" />
        </label>
        <QueryField value={EXAMPLE_QUERY} />
        <SubmitRow state={state} label="Create group" busyLabel="Creating…" />
      </form>
    </details>
  );
}

function QueryField(props: { value: string }) {
  return (
    <label>
      Query (JSON: classes, labels, agentType, agentVersion, manifestIds, components, flowId, operatingSystem,
      machineArch, status, seenWithinMinutes, silentForMinutes)
      <textarea name="query" class="mono" rows={10} required spellcheck={false} defaultValue={props.value} />
    </label>
  );
}

/**
 * One group: its query, its members' count by the last counting pass (or counted now, on asking: a read of the
 * agents' index), changing or deleting it, and its members page by page.
 */
export function GroupDetail() {
  const { client, session } = useConsole();
  const location = useLocation();
  const { params } = useRoute();
  const groupName = params.groupName ?? "";
  const path = { groupName };
  const cursor = location.query.cursor || undefined;
  const [live, setLive] = useState(false);
  const [group, reload] = useResource(
    () =>
      dataOf(
        client.GET("/api/v1/groups/{groupName}", {
          params: { path, query: live ? { count: "live" } : {} },
        }),
      ),
    `${groupName}/${live}`,
  );
  const countLive = () => (live ? reload() : setLive(true));
  const [members, reloadMembers] = useResource(
    () =>
      dataOf(
        client.GET("/api/v1/groups/{groupName}/agents", {
          params: { path, query: { cursor, limit: MEMBERS_PAGE_SIZE } },
        }),
      ),
    `${groupName}/${cursor ?? ""}`,
  );
  const mayChange = mayCall(session, "PUT /api/v1/groups/{groupName}");
  return (
    <Page title={`Group ${groupName}`}>
      <p>
        <a href="/groups">All groups</a>
      </p>
      <Loaded resource={group} what="the group" reload={reload}>
        {(found) => (
          <>
            <dl class="facts">
              <Fact term="Description">{found.description ?? "—"}</Fact>
              <Fact term="Query">
                <pre class="mono">{JSON.stringify(found.query, null, 2)}</pre>
              </Fact>
              <Fact term="Members">
                <CountedMembers group={found} />{" "}
                <button
                  type="button"
                  onClick={() => {
                    countLive();
                    reloadMembers();
                  }}
                >
                  Count now
                </button>
              </Fact>
              <Fact term="Rollouts">
                {found.requireApproval
                  ? "wait for an operator other than their creator to approve them"
                  : "start without approval"}
              </Fact>
              <Fact term="Maintenance windows">
                {found.maintenanceWindows.length > 0
                  ? `${found.maintenanceWindows.map(windowLine).join("; ")} (with each member's class's)`
                  : "none: its class's alone"}
              </Fact>
              <Fact term="Created">{dateTime(found.createdAt)}</Fact>
              <Fact term="Updated">{dateTime(found.updatedAt)}</Fact>
            </dl>
            {mayChange && (
              <>
                <EditGroup
                  group={found}
                  onSaved={() => {
                    reload();
                    reloadMembers();
                  }}
                />
                <GroupSettings group={found} onSaved={reload} />
              </>
            )}
            {mayCall(session, "POST /api/v1/groups/{groupName}/pin") && (
              <GroupPins groupName={found.name} onChanged={reloadMembers} />
            )}
            {mayCall(session, "DELETE /api/v1/groups/{groupName}") && (
              <ConfirmedAction
                ask="Delete group"
                confirm={`Delete ${found.name}`}
                keep="Keep it"
                warning="Its agents stay as they are; only the saved query goes."
                act={() => dataOf(client.DELETE("/api/v1/groups/{groupName}", { params: { path } }))}
                onDone={() => location.route("/groups")}
              />
            )}
          </>
        )}
      </Loaded>
      <h2>Members</h2>
      <Loaded resource={members} what="the group's members" reload={reloadMembers}>
        {(page) => (
          <>
            {page.items.length === 0 ? (
              <p class="empty">No agent matches the group's query now.</p>
            ) : (
              <AgentTable label="Members" agents={page.items} />
            )}
            <Pager
              label="Pages of members"
              cursor={cursor}
              nextCursor={page.nextCursor}
              urlOf={(next) => withCursor(groupUrl(groupName), next)}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

function EditGroup(props: { group: Schemas["Group"]; onSaved: () => void }) {
  const { client } = useConsole();
  const [state, run] = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    const fields = new FormData(event.currentTarget as HTMLFormElement);
    const saved = await run(() => changeGroup(client, props.group, definitionOf(fields)));
    if (saved) props.onSaved();
  }
  return (
    <details class="panel">
      <summary>Change the query</summary>
      <form key={props.group.updatedAt} onSubmit={submit} class="stacked">
        <label>
          Description (optional)
          <input name="description" maxLength={512} defaultValue={props.group.description ?? ""} />
        </label>
        <QueryField value={JSON.stringify(props.group.query, null, 2)} />
        <SubmitRow state={state} label="Save" busyLabel="Saving…" />
      </form>
    </details>
  );
}

/** The switch for the approval of rollouts to the group, and the form of its maintenance windows. */
function GroupSettings(props: { group: Schemas["Group"]; onSaved: () => void }) {
  const { client } = useConsole();
  const [state, run] = useAction();
  const { group } = props;
  async function toggleApproval() {
    const saved = await run(() => changeGroup(client, group, { requireApproval: !group.requireApproval }));
    if (saved) props.onSaved();
  }
  return (
    <>
      <div class="button-row">
        <button type="button" onClick={toggleApproval} disabled={state.status === "busy"}>
          {group.requireApproval
            ? "Let rollouts start without approval"
            : "Require a second operator's approval"}
        </button>
      </div>
      <ActionProblem state={state} />
      <details class="panel">
        <summary>Change the maintenance windows</summary>
        <MaintenanceWindowsForm
          current={group.maintenanceWindows}
          withoutWindows="its members' classes' windows alone"
          save={(windows) => changeGroup(client, group, { maintenanceWindows: windows })}
          onSaved={props.onSaved}
        />
      </details>
    </>
  );
}

/** What a group's pin or unpin did, in a line: how many members it changed, and those it passed over. */
function tallyLine(done: string, count: number, tally: Schemas["GroupUnpinned"] | Schemas["GroupPinned"]) {
  const passed = tally.skipped.map((skipped) => `${skipped.agentId} (${skipped.reason})`).join("; ");
  const more =
    tally.skippedCount > tally.skipped.length
      ? `; and ${tally.skippedCount - tally.skipped.length} more`
      : "";
  return tally.skippedCount === 0
    ? `${done} ${count}.`
    : `${done} ${count}; passed over ${tally.skippedCount}: ${passed}${more}.`;
}

/**
 * Pins every member to the version it runs, or unpins every pinned one: catch-up and rollouts leave pinned
 * members on their version until they are unpinned.
 */
function GroupPins(props: { groupName: string; onChanged: () => void }) {
  const { client } = useConsole();
  const [state, run] = useAction();
  const [notice, setNotice] = useState<string>();
  const params = { path: { groupName: props.groupName } };
  async function pinAll() {
    const tally = await run(() =>
      dataOf(client.POST("/api/v1/groups/{groupName}/pin", { params, body: {} })),
    );
    if (tally) {
      setNotice(tallyLine("Pinned", tally.pinned, tally));
      props.onChanged();
    }
  }
  async function unpinAll() {
    const tally = await run(() => dataOf(client.POST("/api/v1/groups/{groupName}/unpin", { params })));
    if (tally) {
      setNotice(tallyLine("Unpinned", tally.unpinned, tally));
      props.onChanged();
    }
  }
  const busy = state.status === "busy";
  return (
    <section aria-labelledby="group-pins">
      <h2 id="group-pins">Pins</h2>
      <p class="hint">
        Each member to the version it runs; catch-up and rollouts leave it there until it is unpinned.
      </p>
      <div class="button-row">
        <button type="button" onClick={pinAll} disabled={busy}>
          Pin all
        </button>
        <button type="button" onClick={unpinAll} disabled={busy}>
          Unpin all
        </button>
      </div>
      {notice && <p role="status">{notice}</p>}
      <ActionProblem state={state} />
    </section>
  );
}

import { useState } from "preact/hooks";
import { type ConsoleClient, dataOf, type Schemas } from "../api/client";
import { useConsole } from "./console";
import { ActionProblem, useAction } from "./resource";

/** Rollouts read per request while the queue is gathered; the API filters each page as it reads it. */
const QUEUE_PAGE_SIZE = 100;

/**
 * Every rollout awaiting a second operator's approval, newest first. The state filter narrows each page
 * the API reads, so a page may come empty and still lead on: the queue follows the cursor to its end.
 */
export async function awaitingApproval(client: ConsoleClient): Promise<Schemas["Rollout"][]> {
  const waiting: Schemas["Rollout"][] = [];
  let cursor: string | undefined;
  do {
    const page = await dataOf(
      client.GET("/api/v1/rollouts", {
        params: { query: { state: "awaiting_approval", cursor, limit: QUEUE_PAGE_SIZE } },
      }),
    );
    waiting.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return waiting;
}

/**
 * Approve or refuse a rollout that has not started. Its creator may not approve it (four eyes: the API
 * refuses them too) but may withdraw it; a scheduled one, approved or needing none, may only be refused.
 */
export function ApprovalActions(props: { rollout: Schemas["Rollout"]; onChanged: () => void }) {
  const { client, session } = useConsole();
  const [state, run] = useAction();
  const [refusing, setRefusing] = useState(false);
  const { rolloutId, state: rolloutState, createdBy } = props.rollout;
  const path = { rolloutId };
  const own = createdBy === session.subject;
  const awaiting = rolloutState === "awaiting_approval";

  async function approve() {
    const changed = await run(() =>
      dataOf(client.POST("/api/v1/rollouts/{rolloutId}/approve", { params: { path } })),
    );
    if (changed) props.onChanged();
  }

  async function refuse(event: Event) {
    event.preventDefault();
    const reason = String(new FormData(event.currentTarget as HTMLFormElement).get("reason") ?? "").trim();
    const changed = await run(() =>
      dataOf(
        client.POST("/api/v1/rollouts/{rolloutId}/refuse", {
          params: { path },
          body: reason === "" ? {} : { reason },
        }),
      ),
    );
    if (changed) props.onChanged();
  }

  const busy = state.status === "busy";
  return (
    <div class="actions">
      {awaiting && own && <p class="hint">Needs another operator: you created it.</p>}
      {refusing ? (
        <form class="stacked" onSubmit={refuse}>
          <label>
            Why (optional)
            <input name="reason" type="text" maxLength={1024} />
          </label>
          <div class="button-row">
            <button type="submit" class="danger" disabled={busy}>
              {own ? "Withdraw it" : "Refuse it"}
            </button>
            <button type="button" onClick={() => setRefusing(false)}>
              Keep it waiting
            </button>
          </div>
        </form>
      ) : (
        <div class="button-row">
          {awaiting && !own && (
            <button type="button" onClick={approve} disabled={busy}>
              Approve
            </button>
          )}
          <button type="button" class="danger" onClick={() => setRefusing(true)}>
            {own ? "Withdraw…" : "Refuse…"}
          </button>
        </div>
      )}
      <ActionProblem state={state} />
    </div>
  );
}

import { useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { dataOf, type Schemas } from "../api/client";
import { ConfirmedAction } from "../components/confirmed-action";
import { useConsole } from "../components/console";
import { Fact } from "../components/fact";
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
import { describeEventType, EventFamilies, type EventTypePattern } from "../event-types";
import { dateTime } from "../format";
import { mayAct } from "../session";

const PAGE_SIZE = 25;

const listUrl = (cursor?: string) =>
  cursor ? `/webhooks?${new URLSearchParams({ cursor }).toString()}` : "/webhooks";

/** The tenant's event subscriptions: HTTPS receivers Beacon posts signed notifications to. */
export function Webhooks() {
  const { client, session } = useConsole();
  const { query } = useLocation();
  const cursor = query.cursor || undefined;
  const [subscriptions, reload] = useResource(
    () => dataOf(client.GET("/api/v1/webhooks", { params: { query: { cursor, limit: PAGE_SIZE } } })),
    cursor ?? "",
  );
  // Only in this page's memory, and only until dismissed: the API answers the secret this once.
  const [created, setCreated] = useState<Schemas["CreatedSubscription"]>();

  return (
    <Page title="Event subscriptions">
      {mayAct(session, "admin") && (
        <SubscribeForm
          onCreated={(subscription) => {
            setCreated(subscription);
            reload();
          }}
        />
      )}
      {created && <SecretOnce subscription={created} onDone={() => setCreated(undefined)} />}
      <h2>Subscriptions</h2>
      <Loaded resource={subscriptions} what="event subscriptions" reload={reload}>
        {(page) => (
          <>
            {page.items.length === 0 ? (
              <p class="empty">
                No subscription yet. Subscribe an HTTPS endpoint above to have Beacon post the events it
                names, signed with a secret only you and Beacon know.
              </p>
            ) : (
              <SubscriptionTable subscriptions={page.items} onChanged={reload} />
            )}
            <Pager
              label="Pages of event subscriptions"
              cursor={cursor}
              nextCursor={page.nextCursor}
              urlOf={listUrl}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

/** The patterns to ask for: a chosen family stands for its types, which are then not named one by one. */
function patternsOf(chosen: ReadonlySet<EventTypePattern>): EventTypePattern[] {
  return EventFamilies.flatMap((family) =>
    chosen.has(family.pattern) ? [family.pattern] : family.types.filter((type) => chosen.has(type)),
  );
}

function SubscribeForm(props: { onCreated: (subscription: Schemas["CreatedSubscription"]) => void }) {
  const { client } = useConsole();
  const [chosen, setChosen] = useState<ReadonlySet<EventTypePattern>>(new Set());
  const [state, run] = useAction();

  const toggle = (pattern: EventTypePattern, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(pattern);
    else next.delete(pattern);
    setChosen(next);
  };

  async function submit(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = new FormData(form);
    const text = (name: string) => String(fields.get(name) ?? "").trim() || undefined;
    const eventTypes = patternsOf(chosen);
    const subscription = await run(() => {
      if (eventTypes.length === 0) throw new Error("Pick at least one event type.");
      const body: Schemas["SubscriptionRequest"] = {
        url: text("url") ?? "",
        eventTypes,
        agentClass: text("agentClass"),
        description: text("description"),
      };
      return dataOf(client.POST("/api/v1/webhooks", { body }));
    });
    if (subscription) {
      form.reset();
      setChosen(new Set());
      props.onCreated(subscription);
    }
  }

  return (
    <details class="panel">
      <summary>Subscribe an endpoint</summary>
      <form onSubmit={submit} class="stacked">
        <label>
          Receiver URL (https)
          <input
            name="url"
            type="url"
            required
            maxLength={2048}
            placeholder="https://hooks.example.com/beacon"
            autoComplete="off"
          />
        </label>
        <fieldset>
          <legend>Event types</legend>
          <div class="event-types">
            {EventFamilies.map((family) => {
              const wholeFamily = chosen.has(family.pattern);
              return (
                <fieldset key={family.name} class="event-family">
                  <legend>{family.name}</legend>
                  <EventTypeBox
                    pattern={family.pattern}
                    checked={wholeFamily}
                    onChange={(on) => toggle(family.pattern, on)}
                  />
                  {family.types.map((type) => (
                    <EventTypeBox
                      key={type}
                      pattern={type}
                      checked={wholeFamily || chosen.has(type)}
                      disabled={wholeFamily}
                      onChange={(on) => toggle(type, on)}
                    />
                  ))}
                </fieldset>
              );
            })}
          </div>
        </fieldset>
        <label>
          Only agents of class (optional)
          <input name="agentClass" maxLength={128} pattern="[A-Za-z0-9._\-]{1,128}" autoComplete="off" />
        </label>
        <label>
          Description (optional)
          <input name="description" maxLength={256} autoComplete="off" />
        </label>
        <SubmitRow state={state} label="Subscribe" busyLabel="Subscribing…" />
      </form>
    </details>
  );
}

function EventTypeBox(props: {
  pattern: EventTypePattern;
  checked: boolean;
  disabled?: boolean;
  onChange: (on: boolean) => void;
}) {
  return (
    <label class="inline">
      <input
        type="checkbox"
        checked={props.checked}
        disabled={props.disabled}
        onChange={(event) => props.onChange(event.currentTarget.checked)}
      />
      <span>
        <span class="mono">{props.pattern}</span>{" "}
        <span class="muted">{describeEventType(props.pattern)}</span>
      </span>
    </label>
  );
}

/** The one time Beacon hands out a subscription's signing secret: shown, offered to copy, gone when dismissed. */
function SecretOnce(props: { subscription: Schemas["CreatedSubscription"]; onDone: () => void }) {
  const { subscription } = props;
  const [copied, setCopied] = useState<string>();
  async function copy() {
    try {
      await navigator.clipboard.writeText(subscription.secret);
      setCopied("Copied to the clipboard.");
    } catch {
      setCopied("The browser would not copy it: select the secret and copy it yourself.");
    }
  }
  return (
    <section class="panel issued" aria-labelledby="subscribed-heading">
      <h2 id="subscribed-heading">Subscribed {subscription.url}</h2>
      <p class="notice" role="alert">
        Copy the signing secret now: it will not be shown again. Beacon keeps it only to sign deliveries; your
        receiver checks each delivery's <span class="mono">webhook-signature</span> header with it.
      </p>
      <label>
        Signing secret
        <input readOnly class="mono" value={subscription.secret} autoComplete="off" spellcheck={false} />
      </label>
      <div class="button-row">
        <button type="button" onClick={copy}>
          Copy secret
        </button>
        <a href={`/webhooks/${encodeURIComponent(subscription.subscriptionId)}`}>Send it a test</a>
        <button type="button" onClick={props.onDone}>
          Done, forget the secret
        </button>
      </div>
      {copied && <p role="status">{copied}</p>}
    </section>
  );
}

/** A subscription's state, why and since when it is disabled, and the way to enable it again. */
function SubscriptionState(props: { subscription: Schemas["Subscription"]; onEnabled: () => void }) {
  const { subscription } = props;
  return (
    <>
      <span class={`state state-${subscription.state}`}>{subscription.state}</span>
      {subscription.disabledReason && <div class="muted">{subscription.disabledReason}</div>}
      {subscription.disabledAt && <div class="muted">since {dateTime(subscription.disabledAt)}</div>}
      {subscription.state === "disabled" && (
        <EnableSubscription subscriptionId={subscription.subscriptionId} onEnabled={props.onEnabled} />
      )}
    </>
  );
}

function SubscriptionTable(props: { subscriptions: Schemas["Subscription"][]; onChanged: () => void }) {
  return (
    <TableFrame label="Event subscriptions">
      <table>
        <TableHead columns={["Receiver", "Event types", "Class", "State", "Created"]} />
        <tbody>
          {props.subscriptions.map((subscription) => (
            <tr key={subscription.subscriptionId}>
              <td>
                <a href={`/webhooks/${encodeURIComponent(subscription.subscriptionId)}`}>
                  {subscription.url}
                </a>
                {subscription.description && <div class="muted">{subscription.description}</div>}
              </td>
              <td class="mono">{subscription.eventTypes.join(", ")}</td>
              <td>{subscription.agentClass ?? "any"}</td>
              <td>
                <SubscriptionState subscription={subscription} onEnabled={props.onChanged} />
              </td>
              <td>
                {dateTime(subscription.createdAt)}
                <div class="muted">{subscription.createdBy}</div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

const DELIVERIES_PAGE_SIZE = 20;

/**
 * One subscription: what it wants, enabling it again once disabled, a test delivery, deleting it, and its
 * deliveries' log.
 */
export function WebhookDetail() {
  const { client } = useConsole();
  const location = useLocation();
  const { params } = useRoute();
  const subscriptionId = params.subscriptionId ?? "";
  const path = { subscriptionId };
  const detailUrl = `/webhooks/${encodeURIComponent(subscriptionId)}`;
  const [subscription, reload] = useResource(
    () => dataOf(client.GET("/api/v1/webhooks/{subscriptionId}", { params: { path } })),
    subscriptionId,
  );

  return (
    <Page title="Event subscription">
      <p>
        <a href="/webhooks">All event subscriptions</a>
      </p>
      <Loaded resource={subscription} what="the subscription" reload={reload}>
        {(found) => (
          <>
            <dl class="facts">
              <Fact term="Receiver">
                <span class="mono">{found.url}</span>
              </Fact>
              <Fact term="Event types">
                <span class="mono">{found.eventTypes.join(", ")}</span>
              </Fact>
              <Fact term="Class">{found.agentClass ?? "any"}</Fact>
              <Fact term="State">
                <SubscriptionState subscription={found} onEnabled={reload} />
              </Fact>
              <Fact term="Created">
                {dateTime(found.createdAt)} by {found.createdBy}
              </Fact>
              <Fact term="Description">{found.description ?? "—"}</Fact>
              <Fact term="Id">
                <span class="mono">{found.subscriptionId}</span>
              </Fact>
            </dl>
            <div class="button-row">
              <SendTest subscriptionId={subscriptionId} />
              <DeleteSubscription subscription={found} onDeleted={() => location.route("/webhooks")} />
            </div>
            <Deliveries
              subscriptionId={subscriptionId}
              cursor={location.query.cursor}
              detailUrl={detailUrl}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

/** Makes a disabled subscription active again: events from then on are delivered, none given up before. */
function EnableSubscription(props: { subscriptionId: string; onEnabled: () => void }) {
  const { client } = useConsole();
  const [state, run] = useAction();
  const path = { subscriptionId: props.subscriptionId };
  async function enable() {
    const enabled = await run(() =>
      dataOf(client.POST("/api/v1/webhooks/{subscriptionId}/enable", { params: { path } })),
    );
    if (enabled) props.onEnabled();
  }
  return (
    <div>
      <button type="button" onClick={enable} disabled={state.status === "busy"}>
        Enable
      </button>
      <div class="muted">New events are delivered again; deliveries given up are not resent.</div>
      <ActionProblem state={state} />
    </div>
  );
}

function testOutcome(result: Schemas["WebhookTestResult"]): string {
  const took = `${Math.round(result.durationMs)} ms`;
  if (result.status !== undefined) return `the receiver answered ${result.status} in ${took}.`;
  return `no answer: ${result.error ?? "none came"} (after ${took}).`;
}

/** Posts a signed `webhook.test` at once, outside the delivery queue, and says how the receiver answered. */
function SendTest(props: { subscriptionId: string }) {
  const { client } = useConsole();
  const [state, run] = useAction();
  const [result, setResult] = useState<Schemas["WebhookTestResult"]>();
  const path = { subscriptionId: props.subscriptionId };
  async function send() {
    setResult(undefined);
    const answered = await run(() =>
      dataOf(client.POST("/api/v1/webhooks/{subscriptionId}/test", { params: { path } })),
    );
    if (answered) setResult(answered);
  }
  return (
    <section class="panel" aria-label="Test delivery">
      <button type="button" onClick={send} disabled={state.status === "busy"}>
        {state.status === "busy" ? "Sending…" : "Send test"}
      </button>
      <div role="status">
        {result && (
          <p>
            <span class={`state state-${result.delivered ? "delivered" : "failed"}`}>
              {result.delivered ? "delivered" : "not delivered"}
            </span>{" "}
            {testOutcome(result)} <span class="muted">webhook-id {result.notificationId}</span>
          </p>
        )}
      </div>
      <ActionProblem state={state} />
    </section>
  );
}

function DeleteSubscription(props: { subscription: Schemas["Subscription"]; onDeleted: () => void }) {
  const { client } = useConsole();
  const path = { subscriptionId: props.subscription.subscriptionId };
  return (
    <ConfirmedAction
      ask="Delete…"
      confirm="Delete this subscription"
      keep="Keep it"
      warning={`Nothing more will be posted to ${props.subscription.url}, deliveries still being retried included.`}
      act={() => dataOf(client.DELETE("/api/v1/webhooks/{subscriptionId}", { params: { path } }))}
      onDone={props.onDeleted}
    />
  );
}

function lastAnswer(attempt: Schemas["WebhookDelivery"]["lastAttempt"]): string {
  if (attempt === undefined) return "—";
  const answer = attempt.status !== undefined ? `answered ${attempt.status}` : (attempt.error ?? "no answer");
  return `${answer} in ${attempt.durationMs} ms`;
}

/** The subscription's deliveries, newest first, a page at a time; the page in the URL. */
function Deliveries(props: { subscriptionId: string; cursor: string | undefined; detailUrl: string }) {
  const { client } = useConsole();
  const { subscriptionId, detailUrl } = props;
  const cursor = props.cursor || undefined;
  const [deliveries, reload] = useResource(
    () =>
      dataOf(
        client.GET("/api/v1/webhooks/{subscriptionId}/deliveries", {
          params: { path: { subscriptionId }, query: { cursor, limit: DELIVERIES_PAGE_SIZE } },
        }),
      ),
    `${subscriptionId} ${cursor}`,
  );
  const pageUrl = (next?: string) =>
    next ? `${detailUrl}?${new URLSearchParams({ cursor: next })}` : detailUrl;
  return (
    <section aria-labelledby="deliveries-heading">
      <div class="page-head">
        <h2 id="deliveries-heading">Deliveries</h2>
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </div>
      <p class="muted">
        Every notification queued for this subscription, newest first, kept 7 days. A test is posted at once,
        outside this queue, so it is not listed here.
      </p>
      <Loaded resource={deliveries} what="deliveries" reload={reload}>
        {(page) => (
          <>
            {page.items.length === 0 ? (
              <p class="empty">
                {cursor
                  ? "No more deliveries."
                  : "No delivery yet: one is queued when an event this subscription names happens; events are matched to a new subscription within 30 s of its making."}
              </p>
            ) : (
              <TableFrame label="Delivery log">
                <table>
                  <TableHead
                    columns={["Event", "Happened", "State", "Attempts", "Last attempt", "Next attempt"]}
                  />
                  <tbody>
                    {page.items.map((delivery) => (
                      <tr key={delivery.deliveryId}>
                        <td>
                          <span class="mono">{delivery.notificationType}</span>
                          <div class="muted mono">{delivery.deliveryId}</div>
                        </td>
                        <td>{dateTime(delivery.createdAt)}</td>
                        <td>
                          <span class={`state state-${delivery.state}`}>{delivery.state}</span>
                        </td>
                        <td>{delivery.attempts}</td>
                        <td>
                          {lastAnswer(delivery.lastAttempt)}
                          {delivery.lastAttempt && (
                            <div class="muted">{dateTime(delivery.lastAttempt.at)}</div>
                          )}
                        </td>
                        <td>{dateTime(delivery.nextAttemptAt)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableFrame>
            )}
            <Pager label="Pages of deliveries" cursor={cursor} nextCursor={page.nextCursor} urlOf={pageUrl} />
          </>
        )}
      </Loaded>
    </section>
  );
}

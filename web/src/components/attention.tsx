import { dataOf, type Schemas } from "../api/client";
import { mayAct } from "../session";
import { useConsole } from "./console";
import { Loaded, useResource } from "./resource";

type Reason = Schemas["AttentionReason"];
export type ListedReason = Schemas["ListedAttentionReason"];

/** What each reason is called where the console shows it. */
export const REASON_NAMES: Record<Reason, string> = {
  offline: "offline",
  errorBulletins: "ERROR bulletins",
  backPressure: "back pressure",
  operationFailed: "last operation failed",
  offTarget: "off target",
  pinned: "pinned",
  certificateExpiring: "certificate expiring",
};

/** The reasons the agent list filters by, in the console's order. */
export const LISTED_REASONS: ListedReason[] = [
  "offline",
  "errorBulletins",
  "backPressure",
  "operationFailed",
  "offTarget",
  "pinned",
];

/** An agent's reasons, in few words; a dash when it needs no attention, nothing while unknown. */
export function AttentionReasons({ reasons }: { reasons: Reason[] | undefined }) {
  if (reasons === undefined) return null;
  if (reasons.length === 0) return <>—</>;
  return (
    <ul class="attention-reasons">
      {reasons.map((reason) => (
        <li key={reason} class={`state attention-${reason}`}>
          {REASON_NAMES[reason]}
        </li>
      ))}
    </ul>
  );
}

/**
 * The Fleet page's "Needs attention": how many agents need it for each reason over the classes the session
 * sees, each count a link to the agents list filtered by it.
 */
export function NeedsAttention() {
  const { client, session } = useConsole();
  const [attention, reload] = useResource(() => dataOf(client.GET("/api/v1/fleet/attention")), "attention");
  return (
    <section aria-labelledby="needs-attention">
      <h2 id="needs-attention">Needs attention</h2>
      <Loaded resource={attention} what="what needs attention" reload={reload}>
        {(data) => {
          const totals = new Map<ListedReason, number | undefined>(
            LISTED_REASONS.map((reason) => [
              reason,
              data.items.reduce<number | undefined>((sum, item) => {
                const count = item.reasons[reason];
                return sum === undefined || count === undefined ? undefined : sum + count;
              }, 0),
            ]),
          );
          return (
            <dl class="tiles attention">
              {LISTED_REASONS.map((reason) => {
                const count = totals.get(reason);
                return (
                  <div key={reason} data-reason={reason}>
                    <dt>{REASON_NAMES[reason]}</dt>
                    <dd>
                      {count === undefined ? (
                        "unknown"
                      ) : count === 0 ? (
                        "0"
                      ) : (
                        <a href={`/agents?attention=${reason}`}>{count}</a>
                      )}
                    </dd>
                  </div>
                );
              })}
            </dl>
          );
        }}
      </Loaded>
      {/* A certificate is renewed, and a fleet certificate is shared by many agents: the list to act on is of certificates. */}
      {mayAct(session, "admin") && (
        <p>
          Certificates expiring soon: <a href="/certificates?expiring=true">the certificates list</a>.
        </p>
      )}
    </section>
  );
}

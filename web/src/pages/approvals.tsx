import { ApprovalActions, awaitingApproval } from "../components/approval";
import { useConsole } from "../components/console";
import { FlowVersionRef } from "../components/flow-version";
import { Page } from "../components/page";
import { Loaded, TableFrame, TableHead, useResource } from "../components/resource";
import { dateTime } from "../format";
import { mayAct } from "../session";

/**
 * The approvals queue: rollouts waiting for a second operator, each approved or refused here. An
 * operator's own rollouts are listed too, for them to see they wait on someone else, or to withdraw them.
 */
export function Approvals() {
  const { client, session } = useConsole();
  const [queue, reload] = useResource(() => awaitingApproval(client), "approvals");
  const mayDecide = mayAct(session, "operator");
  return (
    <Page title="Approvals">
      <p>
        Rollouts to a class that requires approval wait here until an operator other than the one who created
        each approves it; then they start, or wait for their start time.
      </p>
      <Loaded resource={queue} what="the rollouts awaiting approval" reload={reload}>
        {(waiting) =>
          waiting.length === 0 ? (
            <p class="empty">No rollout awaits approval.</p>
          ) : (
            <TableFrame label="Rollouts awaiting approval">
              <table>
                <TableHead
                  columns={[
                    "Rollout",
                    "Class",
                    "Version",
                    "Created by",
                    "Created",
                    "Starts",
                    ...(mayDecide ? [{ hidden: "Decision" }] : []),
                  ]}
                />
                <tbody>
                  {waiting.map((rollout) => (
                    <tr key={rollout.rolloutId}>
                      <td>
                        <a href={`/rollouts/${encodeURIComponent(rollout.rolloutId)}`}>{rollout.rolloutId}</a>
                      </td>
                      <td>
                        <a href={`/classes/${encodeURIComponent(rollout.className)}`}>{rollout.className}</a>
                      </td>
                      <td class="mono">
                        {rollout.stagedValues ? (
                          "staged values"
                        ) : (
                          <FlowVersionRef hash={rollout.toFlow} name={rollout.toVersion} copy={false} />
                        )}
                      </td>
                      <td>{rollout.createdBy}</td>
                      <td>{dateTime(rollout.createdAt)}</td>
                      <td>{rollout.startAt ? dateTime(rollout.startAt) : "once approved"}</td>
                      {mayDecide && (
                        <td class="wrap">
                          <ApprovalActions rollout={rollout} onChanged={reload} />
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableFrame>
          )
        }
      </Loaded>
    </Page>
  );
}

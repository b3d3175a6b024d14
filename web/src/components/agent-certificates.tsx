import { dataOf } from "../api/client";
import { dateTime } from "../format";
import { mayCall } from "../session";
import { ConfirmedAction } from "./confirmed-action";
import { useConsole } from "./console";
import { Loaded, TableFrame, TableHead, useResource } from "./resource";

/**
 * Every agent certificate issued for the agent, revoked and expired ones too, with Revoke on a valid one:
 * for the roles that may list certificates (admins), who may revoke them too.
 */
export function AgentCertificates(props: { agentId: string }) {
  const { client, session } = useConsole();
  const { agentId } = props;
  const [certificates, reload] = useResource(
    () => dataOf(client.GET("/api/v1/certificates", { params: { query: { agentId } } })),
    `certificates ${agentId}`,
  );
  const mayRevoke = mayCall(session, "POST /api/v1/certificates/{serial}/revoke");
  return (
    <section aria-labelledby="agent-certificates">
      <h2 id="agent-certificates">Certificates issued for it</h2>
      <Loaded resource={certificates} what="the agent's certificates" reload={reload}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="empty">
              Beacon has issued no agent certificate for {agentId}; a certificate issued a moment ago may take
              a moment to be listed here.
            </p>
          ) : (
            <TableFrame label="Certificates issued for the agent">
              <table>
                <TableHead
                  columns={[
                    "Serial",
                    "State",
                    "Expires",
                    "Issued",
                    ...(mayRevoke ? [{ hidden: "Revoke" }] : []),
                  ]}
                />
                <tbody>
                  {page.items.map((certificate) => (
                    <tr key={certificate.serial}>
                      <td class="mono">{certificate.serial}</td>
                      <td>
                        <span class={`state state-${certificate.state}`}>{certificate.state}</span>
                        {certificate.revokedAt && ` ${dateTime(certificate.revokedAt)}`}
                      </td>
                      <td>{dateTime(certificate.notAfter)}</td>
                      <td class="wrap">
                        {dateTime(certificate.issuedAt)} by {certificate.issuedBy}
                      </td>
                      {mayRevoke && (
                        // The confirmation's words wrap inside the cell rather than push it out of view.
                        <td class="wrap">
                          {certificate.state === "valid" && (
                            <ConfirmedAction
                              ask="Revoke…"
                              confirm={`Revoke ${certificate.serial}`}
                              keep="Keep it"
                              warning={`${agentId} can no longer reach Beacon with this certificate: its next request with it is refused. Revoking cannot be undone.`}
                              act={() =>
                                dataOf(
                                  client.POST("/api/v1/certificates/{serial}/revoke", {
                                    params: { path: { serial: certificate.serial } },
                                  }),
                                )
                              }
                              onDone={reload}
                            />
                          )}
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
    </section>
  );
}

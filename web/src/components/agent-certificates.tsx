import { dataOf, type Schemas } from "../api/client";
import { dateTime } from "../format";
import { mayCall } from "../session";
import { useConsole } from "./console";
import { Loaded, TableFrame, TableHead, useResource } from "./resource";
import { RevokeCertificate, revocationReasonWords } from "./revoke-certificate";

/**
 * The agent's certificates, one list whoever looks: those who may list certificates (admins) see every agent
 * certificate issued for it, revoked and expired ones too, with when and by whom it was issued and Revoke on a
 * valid one; the others see those the agent page lists (not revoked, soonest to expire first).
 */
export function AgentCertificates({ agent }: { agent: Schemas["AgentDetail"] }) {
  const { session } = useConsole();
  return (
    <section aria-labelledby="agent-certificates">
      <h2 id="agent-certificates">Certificates</h2>
      {mayCall(session, "GET /api/v1/certificates") ? (
        <IssuedCertificates agentId={agent.agentId} />
      ) : agent.certificates?.length ? (
        <TableFrame label="The agent's certificates">
          <table>
            <TableHead columns={["Serial", "State", "Expires"]} />
            <tbody>
              {agent.certificates.map((certificate) => (
                <tr key={certificate.serial}>
                  <td class="mono">{certificate.serial}</td>
                  <td>
                    <span class={`state state-${certificate.state}`}>{certificate.state}</span>
                  </td>
                  <td>{dateTime(certificate.notAfter)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      ) : (
        <p class="empty">{NONE_OF_ITS_OWN}</p>
      )}
    </section>
  );
}

const NONE_OF_ITS_OWN = "No agent certificate of its own: it speaks with a fleet certificate.";

function IssuedCertificates({ agentId }: { agentId: string }) {
  const { client, session } = useConsole();
  const [certificates, reload] = useResource(
    () => dataOf(client.GET("/api/v1/certificates", { params: { query: { agentId } } })),
    `certificates ${agentId}`,
  );
  const mayRevoke = mayCall(session, "POST /api/v1/certificates/{serial}/revoke");
  return (
    <Loaded resource={certificates} what="the agent's certificates" reload={reload}>
      {(page) =>
        page.items.length === 0 ? (
          <p class="empty">
            {NONE_OF_ITS_OWN} A certificate issued a moment ago may take a moment to be listed here.
          </p>
        ) : (
          <TableFrame label="The agent's certificates">
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
                      {certificate.revokedAt &&
                        ` ${dateTime(certificate.revokedAt)}${revocationReasonWords(certificate.revocationReason)}`}
                    </td>
                    <td>{dateTime(certificate.notAfter)}</td>
                    <td class="wrap">
                      {dateTime(certificate.issuedAt)} by {certificate.issuedBy}
                    </td>
                    {mayRevoke && (
                      // The confirmation's words wrap inside the cell rather than push it out of view.
                      <td class="wrap">
                        {certificate.state === "valid" && (
                          <RevokeCertificate
                            serial={certificate.serial}
                            warning={`${agentId} can no longer reach Beacon with this certificate: its next request with it is refused.`}
                            onRevoked={reload}
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
  );
}

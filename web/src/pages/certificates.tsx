import { useEffect, useMemo, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { dataOf, type Schemas } from "../api/client";
import { Clipped } from "../components/clipped";
import { useConsole } from "../components/console";
import { Page } from "../components/page";
import {
  Loaded,
  Pager,
  SubmitRow,
  TableFrame,
  TableHead,
  useAction,
  useResource,
} from "../components/resource";
import { RevokeCertificate, revocationReasonWords } from "../components/revoke-certificate";
import { dateTime } from "../format";
import { mayCall } from "../session";

const PAGE_SIZE = 50;

/**
 * The tenant's certificates, for an admin: every certificate route is an admin's (x-beacon-role). Any other
 * role is told so, rather than shown a form the API refuses and an error no retry can help.
 */
export function Certificates() {
  const { session } = useConsole();
  if (!mayCall(session, "GET /api/v1/certificates")) {
    return (
      <Page title="Certificates">
        <p class="empty">
          Certificates are an admin's to list, issue and revoke: signed in as {session.role}, you see none
          here. An admin of the tenant issues an agent its certificate, and revokes one an agent should no
          longer use.
        </p>
      </Page>
    );
  }
  return <CertificateList />;
}

function CertificateList() {
  const { client } = useConsole();
  const location = useLocation();
  const { query } = location;
  const expiring = query.expiring === "true";
  const cursor = query.cursor || undefined;
  const [certificates, reload] = useResource(
    () =>
      dataOf(
        client.GET("/api/v1/certificates", {
          params: { query: { expiring: expiring || undefined, cursor, limit: PAGE_SIZE } },
        }),
      ),
    `${expiring} ${cursor}`,
  );
  const [issued, setIssued] = useState<Schemas["IssuedCertificate"]>();
  const listUrl = (next: { expiring?: boolean; cursor?: string }) => {
    const params = new URLSearchParams();
    if (next.expiring) params.set("expiring", "true");
    if (next.cursor) params.set("cursor", next.cursor);
    const search = params.toString();
    return search ? `/certificates?${search}` : "/certificates";
  };

  return (
    <Page title="Certificates">
      <IssueForm
        onIssued={(certificate) => {
          setIssued(certificate);
          reload();
        }}
      />
      {issued && <IssuedOnce certificate={issued} onDone={() => setIssued(undefined)} />}
      <h2>Agent and fleet certificates</h2>
      <div class="filters">
        <label class="inline">
          <input
            type="checkbox"
            checked={expiring}
            onChange={(event) => location.route(listUrl({ expiring: event.currentTarget.checked }))}
          />
          Only those expiring soon
        </label>
      </div>
      <Loaded resource={certificates} what="certificates" reload={reload}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="empty">
              {expiring
                ? "No certificate expires within the warning window."
                : "No certificate yet. Issue one above for an agent or a fleet."}
            </p>
          ) : (
            <>
              <CertificateTable certificates={page.items} onRevoked={reload} />
              <Pager
                label="Pages of certificates"
                cursor={cursor}
                nextCursor={page.nextCursor}
                urlOf={(next) => listUrl({ expiring, cursor: next })}
              />
            </>
          )
        }
      </Loaded>
    </Page>
  );
}

function IssueForm(props: { onIssued: (certificate: Schemas["IssuedCertificate"]) => void }) {
  const { client } = useConsole();
  const [kind, setKind] = useState<"agent" | "fleet">("agent");
  const [keySource, setKeySource] = useState<"generate" | "csr">("generate");
  const [state, run] = useAction();

  async function submit(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = new FormData(form);
    const name = String(fields.get("name") ?? "").trim();
    const validityDays = Number(fields.get("validityDays") ?? 365);
    const key =
      keySource === "csr" ? { csrPem: String(fields.get("csrPem") ?? "") } : { generateKey: true as const };
    const body: Schemas["CertificateRequest"] =
      kind === "agent"
        ? { kind: "agent", agentId: name, validityDays, ...key }
        : { kind: "fleet", fleetName: name, validityDays, ...key };
    const certificate = await run(() => dataOf(client.POST("/api/v1/certificates", { body })));
    if (certificate) {
      form.reset();
      props.onIssued(certificate);
    }
  }

  return (
    <details class="panel">
      <summary>Issue a certificate</summary>
      <form onSubmit={submit} class="stacked">
        <fieldset>
          <legend>For</legend>
          <label class="inline">
            <input type="radio" name="kind" checked={kind === "agent"} onChange={() => setKind("agent")} />
            one agent (OU=agent)
          </label>
          <label class="inline">
            <input type="radio" name="kind" checked={kind === "fleet"} onChange={() => setKind("fleet")} />
            any agent of the tenant (OU=fleet)
          </label>
        </fieldset>
        <label>
          {kind === "agent" ? "Agent id" : "Fleet name"}
          <input name="name" required maxLength={64} pattern="[A-Za-z0-9][A-Za-z0-9._:@\-]{0,63}" />
        </label>
        <label>
          Valid for (days)
          <input name="validityDays" type="number" min={1} max={825} defaultValue="365" required />
        </label>
        <fieldset>
          <legend>Key</legend>
          <label class="inline">
            <input
              type="radio"
              name="keySource"
              checked={keySource === "generate"}
              onChange={() => setKeySource("generate")}
            />
            Beacon generates it (shown once, never kept)
          </label>
          <label class="inline">
            <input
              type="radio"
              name="keySource"
              checked={keySource === "csr"}
              onChange={() => setKeySource("csr")}
            />
            the device's certificate signing request (the key never leaves the device)
          </label>
        </fieldset>
        {keySource === "csr" && (
          <label>
            CSR (PEM)
            <textarea name="csrPem" rows={6} required placeholder="-----BEGIN CERTIFICATE REQUEST-----" />
          </label>
        )}
        <SubmitRow state={state} label="Issue certificate" busyLabel="Issuing…" />
      </form>
    </details>
  );
}

/** The one time Beacon hands out a generated private key: offered as files, gone when dismissed. */
function IssuedOnce(props: { certificate: Schemas["IssuedCertificate"]; onDone: () => void }) {
  const { certificate } = props;
  const name = certificate.agentId ?? certificate.fleetName ?? certificate.serial;
  const files = useMemo(
    () =>
      [
        { label: "Certificate", file: `${name}.pem`, text: certificate.certificatePem },
        { label: "Private key", file: `${name}.key`, text: certificate.privateKeyPem },
        { label: "CA certificate", file: "ca.pem", text: certificate.caCertificatePem },
      ].flatMap(({ text, ...rest }) =>
        text === undefined
          ? []
          : [{ ...rest, url: URL.createObjectURL(new Blob([text], { type: "application/x-pem-file" })) }],
      ),
    [certificate, name],
  );
  useEffect(
    () => () => {
      for (const { url } of files) URL.revokeObjectURL(url);
    },
    [files],
  );
  return (
    <section class="panel issued" aria-labelledby="issued-heading">
      <h2 id="issued-heading">Issued {certificate.subjectDN}</h2>
      <p>
        Serial <span class="mono">{certificate.serial}</span>, valid until {dateTime(certificate.notAfter)}.
      </p>
      {certificate.privateKeyPem !== undefined && (
        <>
          <p class="notice" role="alert">
            This is the only time the private key is shown: Beacon does not keep it. Download it now.
          </p>
          <label>
            Private key
            <textarea readOnly rows={5} class="mono" value={certificate.privateKeyPem} />
          </label>
        </>
      )}
      <div class="button-row">
        {files.map((file) => (
          <a key={file.file} class="button" href={file.url} download={file.file}>
            Download {file.label.toLowerCase()} ({file.file})
          </a>
        ))}
        <button type="button" onClick={props.onDone}>
          Done, forget the key
        </button>
      </div>
    </section>
  );
}

function CertificateTable(props: { certificates: Schemas["Certificate"][]; onRevoked: () => void }) {
  return (
    <TableFrame label="Certificates">
      <table>
        <TableHead columns={["Serial", "For", "State", "Expires", "Issued by", { hidden: "Actions" }]} />
        <tbody>
          {props.certificates.map((certificate) => (
            <tr key={certificate.serial}>
              <td>
                <Clipped text={certificate.serial} mono />
              </td>
              <td>
                {certificate.kind === "agent" ? (
                  <>
                    agent{" "}
                    <a href={`/agents/${encodeURIComponent(certificate.agentId ?? "")}`}>
                      {certificate.agentId}
                    </a>
                  </>
                ) : (
                  `fleet ${certificate.fleetName ?? ""}`
                )}
              </td>
              <td>
                <span class={`state state-${certificate.state}`}>{certificate.state}</span>
                {revocationReasonWords(certificate.revocationReason)}
              </td>
              <td>{dateTime(certificate.notAfter)}</td>
              <td>
                <Clipped text={certificate.issuedBy} />
              </td>
              <td>
                {certificate.state === "valid" && (
                  <RevokeCertificate
                    serial={certificate.serial}
                    warning="An agent presenting it can no longer reach Beacon: its next request with it is refused."
                    onRevoked={props.onRevoked}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

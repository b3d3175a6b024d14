import { useState } from "preact/hooks";
import { dataOf, type Schemas } from "../api/client";
import { ConfirmedAction } from "./confirmed-action";
import { useConsole } from "./console";

type RevocationReason = Schemas["RevocationReason"];

/** The reasons an admin gives, in RFC 5280's terms as people read them, the likeliest first. */
const REASONS: Record<RevocationReason, string> = {
  unspecified: "no reason given",
  keyCompromise: "key compromise",
  superseded: "superseded",
  cessationOfOperation: "cessation of operation",
  affiliationChanged: "affiliation changed",
  privilegeWithdrawn: "privilege withdrawn",
};

/** How a revoked certificate's reason reads in a list: "(key compromise)", nothing when none was recorded. */
export function revocationReasonWords(reason: RevocationReason | undefined): string {
  return reason ? ` (${REASONS[reason]})` : "";
}

/**
 * Revoke… on a valid certificate: the confirmation says what revoking does (`warning`, said of whom it was
 * issued to) and asks why, in the terms the revocation list keeps (RFC 5280's CRLReason).
 */
export function RevokeCertificate(props: { serial: string; warning: string; onRevoked: () => void }) {
  const { client } = useConsole();
  const [reason, setReason] = useState<RevocationReason>("unspecified");
  return (
    <ConfirmedAction
      ask="Revoke…"
      confirm={`Revoke ${props.serial}`}
      keep="Keep it"
      warning={
        <>
          {props.warning} Revoking cannot be undone.{" "}
          <label>
            Reason{" "}
            <select
              name="reason"
              value={reason}
              onChange={(event) => setReason(event.currentTarget.value as RevocationReason)}
            >
              {Object.entries(REASONS).map(([value, words]) => (
                <option key={value} value={value}>
                  {words}
                </option>
              ))}
            </select>
          </label>
        </>
      }
      act={() =>
        dataOf(
          client.POST("/api/v1/certificates/{serial}/revoke", {
            params: { path: { serial: props.serial } },
            body: { reason },
          }),
        )
      }
      onDone={props.onRevoked}
    />
  );
}

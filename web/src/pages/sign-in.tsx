import { useEffect, useState } from "preact/hooks";
import { messageOf } from "../api/client";
import { Roles, type Session, sessionFromToken } from "../session";

/**
 * Local sign-in: `npm start`'s dev issuer hands out a token for any tenant and role, as `npm run token`
 * does. It exists only on the local stack; a deployed console signs in with the identity provider.
 */
export function SignIn(props: { onSignedIn: (session: Session) => void }) {
  const [tenant, setTenant] = useState("dev");
  const [role, setRole] = useState<string>("admin");
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = "Sign in · Beacon";
  }, []);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      const response = await fetch("/local/token", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ tenant: tenant.trim(), role }),
      });
      const body = (await response.json().catch(() => ({}))) as {
        token?: string;
        error?: { message?: string };
      };
      const session = body.token === undefined ? undefined : sessionFromToken(body.token);
      if (!response.ok || session === undefined) {
        throw new Error(body.error?.message ?? `The local issuer answered ${response.status}`);
      }
      props.onSignedIn(session);
    } catch (error) {
      setProblem(messageOf(error));
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <h1>Beacon console</h1>
      <p class="local-banner">
        <strong>Local sign-in.</strong> This is the local stack's dev issuer: it signs a token for any tenant
        and role you pick, with no password. A deployed Beacon signs you in with its identity provider
        instead.
      </p>
      <form onSubmit={submit}>
        <label for="tenant">Tenant</label>
        <input
          id="tenant"
          name="tenant"
          value={tenant}
          required
          pattern="[A-Za-z0-9][A-Za-z0-9._:@\-]{0,127}"
          onInput={(event) => setTenant(event.currentTarget.value)}
        />
        <label for="role">Role</label>
        <select id="role" name="role" value={role} onChange={(event) => setRole(event.currentTarget.value)}>
          {Roles.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <p class="hint">
          viewer reads; operator also runs operations and decommissions; admin also manages certificates.
        </p>
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        {problem && (
          <p class="problem" role="alert">
            Could not sign in: {problem}
          </p>
        )}
      </form>
    </main>
  );
}

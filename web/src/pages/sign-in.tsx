import { useEffect, useRef, useState } from "preact/hooks";
import { type OAuthClientConfig, SIGN_IN_CALLBACK_PATH, type WebConsoleConfig } from "../../serving.js";
import { messageOf } from "../api/client";
import { beginSignIn, completeSignIn } from "../oauth";
import { Roles, type Session, sessionFromToken } from "../session";

/**
 * Sign-in with the identity provider (authorization code with PKCE), and on the local stack beside it the
 * local sign-in, where `npm start`'s dev issuer hands out a token for any tenant and role.
 */
export function SignIn(props: {
  config: WebConsoleConfig;
  returnTo: string;
  onSignedIn: (session: Session) => void;
}) {
  const { oauth, localSignIn } = props.config;
  useEffect(() => {
    document.title = "Sign in · Beacon";
  }, []);
  return (
    <main id="main" class="sign-in">
      <h1>Beacon console</h1>
      {oauth && <ProviderSignIn oauth={oauth} returnTo={props.returnTo} />}
      {localSignIn && <LocalSignIn onSignedIn={props.onSignedIn} />}
      {!oauth && !localSignIn && (
        <p class="problem" role="alert">
          This console has no sign-in configured: its deployment wrote no identity provider to /config.json.
        </p>
      )}
    </main>
  );
}

function ProviderSignIn(props: { oauth: OAuthClientConfig; returnTo: string }) {
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function start() {
    setBusy(true);
    try {
      const redirectUri = `${window.location.origin}${SIGN_IN_CALLBACK_PATH}`;
      window.location.assign(await beginSignIn(props.oauth, redirectUri, props.returnTo, sessionStorage));
    } catch (error) {
      setProblem(messageOf(error));
      setBusy(false);
    }
  }
  return (
    <section class="provider-sign-in">
      <button type="button" disabled={busy} onClick={start}>
        Sign in with the identity provider
      </button>
      <SignInProblem problem={problem} />
    </section>
  );
}

/** Where the identity provider sends the browser back: the code is redeemed, then the page asked for opens. */
export function SignInCallback(props: {
  oauth: OAuthClientConfig;
  onSignedIn: (returnTo: string) => (session: Session) => void;
}) {
  const [problem, setProblem] = useState<string>();
  const { oauth, onSignedIn } = props;
  // A code is redeemed once: a second run of the effect would find the sign-in already used.
  const redeemed = useRef(false);
  useEffect(() => {
    document.title = "Signing in · Beacon";
    if (redeemed.current) return;
    redeemed.current = true;
    completeSignIn(oauth, new URL(window.location.href), sessionStorage)
      .then(({ idToken, returnTo }) => {
        const session = sessionFromToken(idToken);
        if (session === undefined) throw new Error("The ID token carries no Beacon tenant and role");
        onSignedIn(returnTo)(session);
      })
      .catch((error: unknown) => setProblem(messageOf(error)));
  }, [oauth, onSignedIn]);
  return (
    <main id="main" class="sign-in">
      <h1>Beacon console</h1>
      {problem ? (
        <>
          <SignInProblem problem={problem} />
          <p>
            <a href="/sign-in">Sign in again</a>
          </p>
        </>
      ) : (
        <p role="status">Signing in…</p>
      )}
    </main>
  );
}

/**
 * Local sign-in: `npm start`'s dev issuer hands out a token for any tenant and role, as `npm run token`
 * does. It exists only on the local stack; a deployed console signs in with the identity provider.
 */
function LocalSignIn(props: { onSignedIn: (session: Session) => void }) {
  const [tenant, setTenant] = useState("dev");
  const [role, setRole] = useState<string>("admin");
  const [classes, setClasses] = useState("");
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      const response = await fetch("/local/token", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          tenant: tenant.trim(),
          role,
          ...(classes.trim() && { classes: classes.replace(/\s/g, "") }),
        }),
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
    <section>
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
        <label for="classes">Limited to classes (optional)</label>
        <input
          id="classes"
          name="classes"
          value={classes}
          aria-describedby="classes-hint"
          onInput={(event) => setClasses(event.currentTarget.value)}
        />
        <p class="hint" id="classes-hint">
          Class names separated by commas limit the role to those classes' agents; empty, the whole tenant.
        </p>
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        <SignInProblem problem={problem} />
      </form>
    </section>
  );
}

function SignInProblem(props: { problem: string | undefined }) {
  if (props.problem === undefined) return null;
  return (
    <p class="problem" role="alert">
      Could not sign in: {props.problem}
    </p>
  );
}

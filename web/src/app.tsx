import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { ErrorBoundary, LocationProvider, lazy, Route, Router, useLocation } from "preact-iso";
import { SIGN_IN_CALLBACK_PATH, type WebConsoleConfig } from "../serving.js";
import { type ConsoleClient, consoleClient } from "./api/client";
import { awaitingApproval } from "./components/approval";
import { type Console, ConsoleContext, useConsole } from "./components/console";
import { useInterval, useResource } from "./components/resource";
import { type ApiRoute, mayCall, type Session, storedSession, storeSession } from "./session";

// Each page is a chunk of its own, fetched when first opened.
const SignIn = lazy(() => import("./pages/sign-in").then((module) => module.SignIn));
const SignInCallback = lazy(() => import("./pages/sign-in").then((module) => module.SignInCallback));
const Fleet = lazy(() => import("./pages/fleet").then((module) => module.Fleet));
const Agents = lazy(() => import("./pages/agents").then((module) => module.Agents));
const AgentDetail = lazy(() => import("./pages/agent-detail").then((module) => module.AgentDetail));
const Classes = lazy(() => import("./pages/classes").then((module) => module.Classes));
const ClassDetail = lazy(() => import("./pages/class-detail").then((module) => module.ClassDetail));
const Binaries = lazy(() => import("./pages/binaries").then((module) => module.Binaries));
const Assets = lazy(() => import("./pages/assets").then((module) => module.Assets));
const Designer = lazy(() => import("./pages/designer").then((module) => module.Designer));
const Groups = lazy(() => import("./pages/groups").then((module) => module.Groups));
const GroupDetail = lazy(() => import("./pages/groups").then((module) => module.GroupDetail));
const Rollouts = lazy(() => import("./pages/rollouts").then((module) => module.Rollouts));
const RolloutDetail = lazy(() => import("./pages/rollout-detail").then((module) => module.RolloutDetail));
const Approvals = lazy(() => import("./pages/approvals").then((module) => module.Approvals));
const Operations = lazy(() => import("./pages/operations").then((module) => module.Operations));
const Certificates = lazy(() => import("./pages/certificates").then((module) => module.Certificates));
const Audit = lazy(() => import("./pages/audit").then((module) => module.Audit));
const Webhooks = lazy(() => import("./pages/webhooks").then((module) => module.Webhooks));
const WebhookDetail = lazy(() => import("./pages/webhooks").then((module) => module.WebhookDetail));
const Settings = lazy(() => import("./pages/settings").then((module) => module.Settings));
const Usage = lazy(() => import("./pages/usage").then((module) => module.Usage));
const NotFound = lazy(() => import("./pages/not-found").then((module) => module.NotFound));

export function App(props: { config: WebConsoleConfig }) {
  return (
    <LocationProvider>
      <ErrorBoundary>
        <Shell config={props.config} />
      </ErrorBoundary>
    </LocationProvider>
  );
}

const SIGN_IN_PATH = "/sign-in";
/** How often a counted section's count is read again while the user stays on one page. */
const RECOUNT_PERIOD_MS = 30_000;

/**
 * The console's sections, each shown to a session that may call the route its page is built on; a
 * `counted` one shows how many things wait there.
 */
const SECTIONS: readonly {
  href: string;
  label: string;
  route: ApiRoute;
  counted?: (client: ConsoleClient) => Promise<number>;
}[] = [
  { href: "/", label: "Fleet", route: "GET /api/v1/fleet/summary" },
  { href: "/agents", label: "Agents", route: "GET /api/v1/agents" },
  { href: "/classes", label: "Classes and flows", route: "GET /api/v1/classes" },
  { href: "/groups", label: "Groups", route: "GET /api/v1/groups" },
  { href: "/binaries", label: "Binaries", route: "GET /api/v1/fleet/binaries" },
  { href: "/assets", label: "Assets", route: "GET /api/v1/assets" },
  { href: "/rollouts", label: "Rollouts", route: "GET /api/v1/rollouts" },
  {
    href: "/approvals",
    label: "Approvals",
    route: "GET /api/v1/rollouts",
    counted: async (client) => (await awaitingApproval(client)).length,
  },
  { href: "/operations", label: "Operations", route: "GET /api/v1/operations" },
  { href: "/certificates", label: "Certificates", route: "GET /api/v1/certificates" },
  { href: "/audit", label: "Audit trail", route: "GET /api/v1/audit" },
  { href: "/webhooks", label: "Event subscriptions", route: "GET /api/v1/webhooks" },
  { href: "/settings", label: "Settings", route: "GET /api/v1/settings" },
  { href: "/usage", label: "Usage", route: "GET /api/v1/usage" },
];

function Shell({ config }: { config: WebConsoleConfig }) {
  const location = useLocation();
  const [session, setSession] = useState<Session | undefined>(() => storedSession());
  const signIn = useCallback(
    (next: Session, returnTo: string) => {
      storeSession(next);
      setSession(next);
      location.route(returnTo, true);
    },
    [location],
  );
  const signOut = useCallback(() => {
    storeSession(undefined);
    setSession(undefined);
  }, []);
  // Ends the identity provider's session too, when it has one to end; it sends the browser back here.
  const signOutEverywhere = useCallback(() => {
    signOut();
    if (config.oauth?.logoutUrl !== undefined) window.location.assign(config.oauth.logoutUrl);
  }, [signOut, config]);
  const consoleValue = useMemo<Console | undefined>(
    () =>
      session && {
        session,
        client: consoleClient({
          baseUrl: window.location.origin,
          token: session.token,
          onUnauthorized: signOut,
        }),
        signOut,
      },
    [session, signOut],
  );

  const signedIn = (returnTo: string) => (next: Session) =>
    signIn(next, returnTo.startsWith("/") && !returnTo.startsWith("//") ? returnTo : "/");
  if (location.path === SIGN_IN_CALLBACK_PATH && config.oauth !== undefined) {
    return <SignInCallback oauth={config.oauth} onSignedIn={signedIn} />;
  }
  if (location.path === SIGN_IN_PATH || consoleValue === undefined) {
    const returnTo = location.path === SIGN_IN_PATH ? (location.query.next ?? "/") : location.url;
    return <SignIn config={config} returnTo={returnTo} onSignedIn={signedIn(returnTo)} />;
  }
  const sections = SECTIONS.filter(({ route }) => mayCall(consoleValue.session, route));
  return (
    <ConsoleContext.Provider value={consoleValue}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/">
          Beacon
        </a>
        <nav aria-label="Console">
          {sections.map(({ href, label, counted }) =>
            counted ? (
              <CountedNavLink key={href} href={href} label={label} counted={counted} />
            ) : (
              <NavLink key={href} href={href} label={label} />
            ),
          )}
        </nav>
        <div class="who">
          <span>{whoOf(consoleValue.session)}</span>
          <button type="button" class="link" onClick={signOutEverywhere}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        <Router>
          {/* The fleet's summary is the whole tenant's: a session limited to classes starts at its agents. */}
          <Route path="/" component={sections[0]?.href === "/" ? Fleet : Redirect} to={sections[0]?.href} />
          <Route path="/agents" component={Agents} />
          <Route path="/agents/:agentId" component={AgentDetail} />
          <Route path="/classes" component={Classes} />
          <Route path="/classes/:className" component={ClassDetail} />
          <Route path="/classes/:className/designer" component={Designer} />
          <Route path="/groups" component={Groups} />
          <Route path="/binaries" component={Binaries} />
          <Route path="/assets" component={Assets} />
          <Route path="/groups/:groupName" component={GroupDetail} />
          <Route path="/rollouts" component={Rollouts} />
          <Route path="/rollouts/:rolloutId" component={RolloutDetail} />
          <Route path="/approvals" component={Approvals} />
          <Route path="/operations" component={Operations} />
          <Route path="/certificates" component={Certificates} />
          <Route path="/audit" component={Audit} />
          <Route path="/webhooks" component={Webhooks} />
          <Route path="/webhooks/:subscriptionId" component={WebhookDetail} />
          <Route path="/settings" component={Settings} />
          <Route path="/usage" component={Usage} />
          <Route default component={NotFound} />
        </Router>
      </main>
    </ConsoleContext.Provider>
  );
}

/** Who is signed in, as the header names them: `acme · operator · classes: pumps, valves`. */
function whoOf({ tenant, role, classes }: Session): string {
  const scope = classes && ` · classes: ${classes.length === 0 ? "none" : classes.join(", ")}`;
  return `${tenant} · ${role}${scope ?? ""}`;
}

function Redirect(props: { to: string }) {
  const location = useLocation();
  useEffect(() => location.route(props.to, true), [location, props.to]);
  return null;
}

function NavLink(props: { href: string; label: string }) {
  const { path } = useLocation();
  const current = props.href === "/" ? path === "/" : path.startsWith(props.href);
  return (
    <a href={props.href} aria-current={current ? "page" : undefined}>
      {props.label}
    </a>
  );
}

/** A section's link with how many things wait there, counted again as the signed-in user moves between pages. */
function CountedNavLink(props: {
  href: string;
  label: string;
  counted: (client: ConsoleClient) => Promise<number>;
}) {
  const { client } = useConsole();
  const { url } = useLocation();
  const [count, recount] = useResource(() => props.counted(client), props.href);
  // Keeps showing the last count while it is read again.
  useEffect(recount, [url]);
  useInterval(recount, RECOUNT_PERIOD_MS, true);
  const waiting = count.status === "ready" && count.data > 0 ? ` (${count.data})` : "";
  return <NavLink href={props.href} label={`${props.label}${waiting}`} />;
}

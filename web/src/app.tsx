import { useCallback, useMemo, useState } from "preact/hooks";
import { ErrorBoundary, LocationProvider, lazy, Route, Router, useLocation } from "preact-iso";
import { consoleClient } from "./api/client";
import { type Console, ConsoleContext } from "./components/console";
import { mayAct, type Session, storedSession, storeSession } from "./session";

// Each page is a chunk of its own, fetched when first opened.
const SignIn = lazy(() => import("./pages/sign-in").then((module) => module.SignIn));
const Fleet = lazy(() => import("./pages/fleet").then((module) => module.Fleet));
const Agents = lazy(() => import("./pages/agents").then((module) => module.Agents));
const AgentDetail = lazy(() => import("./pages/agent-detail").then((module) => module.AgentDetail));
const Classes = lazy(() => import("./pages/classes").then((module) => module.Classes));
const ClassDetail = lazy(() => import("./pages/class-detail").then((module) => module.ClassDetail));
const Rollouts = lazy(() => import("./pages/rollouts").then((module) => module.Rollouts));
const RolloutDetail = lazy(() => import("./pages/rollout-detail").then((module) => module.RolloutDetail));
const Operations = lazy(() => import("./pages/operations").then((module) => module.Operations));
const Certificates = lazy(() => import("./pages/certificates").then((module) => module.Certificates));
const NotFound = lazy(() => import("./pages/not-found").then((module) => module.NotFound));

export function App() {
  return (
    <LocationProvider>
      <ErrorBoundary>
        <Shell />
      </ErrorBoundary>
    </LocationProvider>
  );
}

const SIGN_IN_PATH = "/sign-in";

function Shell() {
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
  const consoleValue = useMemo<Console | undefined>(
    () => session && { session, client: consoleClient(session.token, signOut), signOut },
    [session, signOut],
  );

  if (location.path === SIGN_IN_PATH || consoleValue === undefined) {
    const returnTo = location.path === SIGN_IN_PATH ? (location.query.next ?? "/") : location.url;
    return <SignIn onSignedIn={(next: Session) => signIn(next, returnTo.startsWith("/") ? returnTo : "/")} />;
  }
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
          <NavLink href="/" label="Fleet" />
          <NavLink href="/agents" label="Agents" />
          <NavLink href="/classes" label="Classes and flows" />
          <NavLink href="/rollouts" label="Rollouts" />
          <NavLink href="/operations" label="Operations" />
          {mayAct(consoleValue.session, "admin") && <NavLink href="/certificates" label="Certificates" />}
        </nav>
        <div class="who">
          <span>
            {consoleValue.session.tenant} · {consoleValue.session.role}
          </span>
          <button type="button" class="link" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        <Router>
          <Route path="/" component={Fleet} />
          <Route path="/agents" component={Agents} />
          <Route path="/agents/:agentId" component={AgentDetail} />
          <Route path="/classes" component={Classes} />
          <Route path="/classes/:className" component={ClassDetail} />
          <Route path="/rollouts" component={Rollouts} />
          <Route path="/rollouts/:rolloutId" component={RolloutDetail} />
          <Route path="/operations" component={Operations} />
          <Route path="/certificates" component={Certificates} />
          <Route default component={NotFound} />
        </Router>
      </main>
    </ConsoleContext.Provider>
  );
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

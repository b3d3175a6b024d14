import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { messageOf } from "../api/client";

export type Resource<T> =
  | { status: "loading" }
  | { status: "error"; error: unknown }
  | { status: "ready"; data: T };

/**
 * Loads what a page shows, again whenever `key` changes (the URL's filters, say) or on `reload`. A reload
 * keeps showing what was loaded until the new reply comes, so a page that follows something live does not
 * flicker; a reply to an older request never overwrites a newer one's.
 */
export function useResource<T>(load: () => Promise<T>, key: string): [Resource<T>, () => void] {
  const [resource, setResource] = useState<Resource<T>>({ status: "loading" });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  const loadedKey = useRef<string | undefined>(undefined);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const request = ++latest.current;
    if (loadedKey.current !== key) setResource({ status: "loading" });
    loadedKey.current = key;
    loadRef.current().then(
      (data) => request === latest.current && setResource({ status: "ready", data }),
      (error: unknown) => request === latest.current && setResource({ status: "error", error }),
    );
  }, [key, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  return [resource, reload];
}

/** The loading and error states every list and panel shares; `children` renders the data. */
export function Loaded<T>(props: {
  resource: Resource<T>;
  what: string;
  reload: () => void;
  children: (data: T) => ComponentChildren;
}) {
  const { resource, what, reload } = props;
  if (resource.status === "loading") {
    return (
      <p class="muted" role="status">
        Loading {what}…
      </p>
    );
  }
  if (resource.status === "error") {
    return (
      <div class="problem" role="alert">
        <p>
          Could not load {what}: {messageOf(resource.error)}
        </p>
        <button type="button" onClick={reload}>
          Try again
        </button>
      </div>
    );
  }
  return <>{props.children(resource.data)}</>;
}

/** Calls `tick` every `periodMs` while `active`: how a page follows something that moves on its own. */
export function useInterval(tick: () => void, periodMs: number, active: boolean): void {
  const tickRef = useRef(tick);
  tickRef.current = tick;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => tickRef.current(), periodMs);
    return () => clearInterval(timer);
  }, [periodMs, active]);
}

export type ActionState = { status: "idle" } | { status: "busy" } | { status: "failed"; message: string };

/** A mutation's progress: busy while it runs, the API's message when it fails. */
export function useAction(): [ActionState, <T>(action: () => Promise<T>) => Promise<T | undefined>] {
  const [state, setState] = useState<ActionState>({ status: "idle" });
  const run = useCallback(async <T,>(action: () => Promise<T>) => {
    setState({ status: "busy" });
    try {
      const result = await action();
      setState({ status: "idle" });
      return result;
    } catch (error) {
      setState({ status: "failed", message: messageOf(error) });
      return undefined;
    }
  }, []);
  return [state, run];
}

export function ActionProblem(props: { state: ActionState }) {
  if (props.state.status !== "failed") return null;
  return (
    <p class="problem" role="alert">
      {props.state.message}
    </p>
  );
}

/** A form's submit button, busy while its action runs, with what came of the last one. */
export function SubmitRow(props: { state: ActionState; label: string; busyLabel: string; notice?: string }) {
  const busy = props.state.status === "busy";
  return (
    <>
      <div class="form-actions">
        <button type="submit" disabled={busy}>
          {busy ? props.busyLabel : props.label}
        </button>
      </div>
      {props.notice && <p role="status">{props.notice}</p>}
      <ActionProblem state={props.state} />
    </>
  );
}

/** A table that scrolls sideways on a narrow screen, reachable by keyboard when it does. */
export function TableFrame(props: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard.
    <section class="table-frame" aria-label={props.label} tabIndex={0}>
      {props.children}
    </section>
  );
}

/** A table's header row; a column given as `{ hidden }` is named for screen readers only. */
export function TableHead(props: { columns: (string | { hidden: string })[] }) {
  return (
    <thead>
      <tr>
        {props.columns.map((column) =>
          typeof column === "string" ? (
            <th scope="col" key={column}>
              {column}
            </th>
          ) : (
            <th scope="col" key={column.hidden}>
              <span class="visually-hidden">{column.hidden}</span>
            </th>
          ),
        )}
      </tr>
    </thead>
  );
}

/**
 * Links to a list's first page, when the URL is on another, and to its next, when the API gave a cursor: the
 * cursor lives in the URL, so a page of a list can be shared and Back returns to it.
 */
export function Pager(props: {
  label: string;
  cursor: string | undefined;
  nextCursor: string | undefined;
  urlOf: (cursor?: string) => string;
}) {
  return (
    <nav class="pager" aria-label={props.label}>
      {props.cursor && <a href={props.urlOf()}>First page</a>}
      {props.nextCursor && <a href={props.urlOf(props.nextCursor)}>Next page</a>}
    </nav>
  );
}

import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";

/** A page's heading, and the window's title to match. */
export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${props.title} · Beacon`;
  }, [props.title]);
  return (
    <>
      <div class="page-head">
        <h1>{props.title}</h1>
        {props.actions}
      </div>
      {props.children}
    </>
  );
}

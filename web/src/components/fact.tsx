import type { ComponentChildren } from "preact";

/** One term and its value in a `<dl class="facts">`. */
export function Fact(props: { term: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{props.term}</dt>
      <dd>{props.children}</dd>
    </div>
  );
}

/**
 * A long value (a hash, a serial, an id) cut to the width its column allows, so a table keeps its actions in
 * view; the whole value is in its tooltip, and selecting it copies it whole.
 */
export function Clipped(props: { text: string; mono?: boolean }) {
  return (
    <span class={props.mono ? "clipped mono" : "clipped"} title={props.text}>
      {props.text}
    </span>
  );
}

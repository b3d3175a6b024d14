import { shortHash } from "../format";

/**
 * A binary as the console shows it: the name Beacon gives it (`MiNiFi Java 2.3.0 · 3f9a12c`), or, while
 * Beacon has yet to learn its manifest, the start of the manifest hash the agent reports.
 */
export function BinaryName(props: { name?: string; manifestId?: string; manifestHash?: string }) {
  if (props.name) return <span title={props.manifestId}>{props.name}</span>;
  return (
    <span
      class="mono"
      title={props.manifestHash ? `manifest ${props.manifestHash}, not yet learnt` : undefined}
    >
      {shortHash(props.manifestHash)}
    </span>
  );
}

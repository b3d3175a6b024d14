import { SHORT_ID_LENGTH } from "../../../functions/core/manifests/binary-name.js";
import { shortHash } from "../format";

/**
 * A binary as the console shows it: the name Beacon gives it (`MiNiFi Java 2.3.0 · 3f9a12c`), or only the
 * start of its canonical id (`short`, where the agent type and version are shown beside it), or, while Beacon
 * has yet to learn its manifest, the start of the manifest hash the agent reports.
 */
export function BinaryName(props: {
  name?: string;
  manifestId?: string;
  manifestHash?: string;
  short?: boolean;
}) {
  if (props.name && props.short && props.manifestId)
    return (
      <span class="mono" title={`${props.name} (${props.manifestId})`}>
        {props.manifestId.slice(0, SHORT_ID_LENGTH)}
      </span>
    );
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

import { useState } from "preact/hooks";
import type { Schemas } from "../api/client";
import { shortHash } from "../format";

/** A version's name as people say it: `v7 "kafka tls"`, either part alone, or nothing for neither. */
export function flowVersionText(name: Schemas["FlowVersionName"] | undefined): string {
  if (!name) return "";
  const parts = [name.version === undefined ? "" : `v${name.version}`, name.label ? `"${name.label}"` : ""];
  return parts.filter(Boolean).join(" ");
}

/** A version in words where markup cannot go (headings, notices): its name, then the start of its hash. */
export function flowVersionWords(hash: string, name?: Schemas["FlowVersionName"]): string {
  return [flowVersionText(name), shortHash(hash)].filter(Boolean).join(" ");
}

/** Copies the full text to the clipboard, saying so once done. */
export function CopyButton(props: { text: string; what: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={async () => {
        await navigator.clipboard.writeText(props.text);
        setCopied(true);
      }}
    >
      {copied ? "copied" : "copy"}
      <span class="visually-hidden"> {props.what}</span>
    </button>
  );
}

/**
 * A flow version as the console shows it wherever its hash was: its name (`v7 "kafka tls"`), the start of
 * its hash, and a button copying the whole hash. A flow Beacon knows as no version shows the hash alone.
 */
export function FlowVersionRef(props: {
  hash: string | undefined;
  name?: Schemas["FlowVersionName"];
  copy?: boolean;
}) {
  if (!props.hash) return <span>—</span>;
  const name = flowVersionText(props.name);
  return (
    <span class="flow-version">
      {name && <span class="version-name">{name} </span>}
      <span class="mono" title={props.hash}>
        {shortHash(props.hash)}
      </span>
      {props.copy !== false && (
        <>
          {" "}
          <CopyButton text={props.hash} what={`flow hash ${props.hash}`} />
        </>
      )}
    </span>
  );
}

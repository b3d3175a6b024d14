import type { Schemas } from "../api/client";

/** An agent's labels as `key=value` terms, the form the agent list's label filter takes. */
export function LabelList({ labels }: { labels: Schemas["Labels"] | undefined }) {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return <>—</>;
  return (
    <ul class="labels">
      {entries.map(([key, value]) => (
        <li key={key} class="mono">
          <a href={`/agents?label=${encodeURIComponent(`${key}=${value}`)}`}>
            {key}={value}
          </a>
        </li>
      ))}
    </ul>
  );
}

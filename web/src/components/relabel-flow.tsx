import { useState } from "preact/hooks";
import { dataOf, type Schemas } from "../api/client";
import { useConsole } from "./console";
import { flowVersionText } from "./flow-version";
import { ActionProblem, useAction } from "./resource";

/**
 * Relabels a published flow version (`PUT …/flows/{hash}/label`): the form says what stays (hash, number,
 * content) and asks for the label; an empty label removes it. What the API refuses is shown in the form.
 */
export function RelabelFlow(props: {
  className: string;
  version: Schemas["FlowVersion"];
  onRelabelled: (version: Schemas["FlowVersion"]) => void;
}) {
  const { client } = useConsole();
  const [editing, setEditing] = useState(false);
  const [state, run] = useAction();
  const { version } = props;
  const named = flowVersionText(version) || `version ${version.hash.slice(0, 12)}`;

  async function submit(event: Event) {
    event.preventDefault();
    const label = String(new FormData(event.currentTarget as HTMLFormElement).get("label") ?? "").trim();
    const relabelled = await run(() =>
      dataOf(
        client.PUT("/api/v1/classes/{className}/flows/{hash}/label", {
          params: { path: { className: props.className, hash: version.hash } },
          body: { label },
        }),
      ),
    );
    if (relabelled) {
      setEditing(false);
      props.onRelabelled(relabelled);
    }
  }

  if (!editing)
    return (
      <button type="button" onClick={() => setEditing(true)}>
        Relabel…<span class="visually-hidden"> {named}</span>
      </button>
    );
  return (
    <form class="relabel" onSubmit={submit} aria-label={`Relabel ${named}`}>
      <p>
        Relabel {named}? Its hash, number and content stay; agents are not told. Leave it empty to remove the
        label.
      </p>
      <label>
        New label
        <input type="text" name="label" maxLength={64} defaultValue={version.label ?? ""} />
      </label>
      <div class="button-row">
        <button type="submit" disabled={state.status === "busy"}>
          {state.status === "busy" ? "Relabelling…" : "Relabel"}
        </button>
        <button type="button" onClick={() => setEditing(false)}>
          Keep it
        </button>
      </div>
      <ActionProblem state={state} />
    </form>
  );
}

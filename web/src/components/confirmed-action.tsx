import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { ActionProblem, useAction } from "./resource";

/**
 * A destructive action asked twice: `ask` opens the confirmation (with `warning`, when given), `confirm`
 * runs `act`, `keep` closes it; `onDone` follows an action the API accepted, its refusal is shown instead.
 */
export function ConfirmedAction(props: {
  ask: ComponentChildren;
  confirm: string;
  keep: string;
  warning?: ComponentChildren;
  act: () => Promise<unknown>;
  onDone: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [state, run] = useAction();
  async function act() {
    if (await run(props.act)) props.onDone();
  }
  if (!confirming) {
    return (
      <button type="button" class="danger" onClick={() => setConfirming(true)}>
        {props.ask}
      </button>
    );
  }
  return (
    <div class={props.warning ? "panel" : undefined}>
      {props.warning && <p>{props.warning}</p>}
      <div class="button-row">
        <button type="button" class="danger" onClick={act} disabled={state.status === "busy"}>
          {props.confirm}
        </button>
        <button type="button" onClick={() => setConfirming(false)}>
          {props.keep}
        </button>
      </div>
      <ActionProblem state={state} />
    </div>
  );
}

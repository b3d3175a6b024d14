import { useState } from "preact/hooks";
import { SubmitRow, useAction } from "./resource";

/** A clean-up age as the console shows it, or what applies without one. */
export const cleanUpAgeText = (days: number | undefined, without: string): string =>
  days === undefined ? without : `${days} days of silence`;

/**
 * Sets a clean-up age (agents silent longer are decommissioned) or, left empty, unsets it (`null`), when
 * `unsetMeans` applies instead.
 */
export function CleanUpAgeForm(props: {
  current: number | undefined;
  unsetMeans: string;
  save: (cleanUpAfterDays: number | null) => Promise<unknown>;
  onSaved: () => void;
}) {
  const [state, run] = useAction();
  const [notice, setNotice] = useState<string>();

  async function submit(event: Event) {
    event.preventDefault();
    const text = String(new FormData(event.currentTarget as HTMLFormElement).get("days") ?? "").trim();
    const days = text === "" ? null : Number(text);
    const saved = await run(async () => {
      await props.save(days);
      return true;
    });
    if (saved) {
      setNotice(days === null ? `Unset: ${props.unsetMeans}.` : `Silent agents go after ${days} days.`);
      props.onSaved();
    }
  }

  return (
    <form class="stacked" onSubmit={submit}>
      <label>
        Clean up agents silent for (days)
        <input
          name="days"
          type="number"
          min={1}
          max={3650}
          step={1}
          defaultValue={props.current === undefined ? "" : String(props.current)}
        />
      </label>
      <p class="hint">
        An agent silent longer than this is decommissioned; it registers again at its next heartbeat. Left
        empty, {props.unsetMeans}.
      </p>
      <SubmitRow state={state} label="Save clean-up age" busyLabel="Saving…" notice={notice} />
    </form>
  );
}

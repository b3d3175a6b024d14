import { useState } from "preact/hooks";
import type { Schemas } from "../api/client";
import { SubmitRow, useAction } from "./resource";

type MaintenanceWindow = Schemas["MaintenanceWindow"];

/** A window as one line: its days, its start and how long it stays open, `sat,sun 02:00 240`. */
export const windowLine = (window: MaintenanceWindow): string =>
  `${window.days.join(",")} ${window.start} ${window.durationMinutes}`;

/** The windows of lines as windowLine writes them; the API checks what they say. */
function windowsOf(text: string): MaintenanceWindow[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map((line) => {
      const [days = "", start = "", minutes = ""] = line.split(/\s+/);
      return {
        days: days.split(",") as MaintenanceWindow["days"],
        start,
        durationMinutes: Number(minutes),
      };
    });
}

/**
 * Sets a class's or a group's maintenance windows, one a line; no lines remove them, which leaves what
 * `withoutWindows` says (a class's agents always open, a group's members their classes' windows alone).
 */
export function MaintenanceWindowsForm(props: {
  current: MaintenanceWindow[] | undefined;
  withoutWindows?: string;
  save: (windows: MaintenanceWindow[]) => Promise<unknown>;
  onSaved: () => void;
}) {
  const [state, run] = useAction();
  const [notice, setNotice] = useState<string>();
  const withoutWindows = props.withoutWindows ?? "always open";

  async function submit(event: Event) {
    event.preventDefault();
    const text = String(new FormData(event.currentTarget as HTMLFormElement).get("windows") ?? "");
    const windows = windowsOf(text);
    const saved = await run(async () => {
      await props.save(windows);
      return true;
    });
    if (saved) {
      setNotice(windows.length === 0 ? `Removed: ${withoutWindows}.` : `${windows.length} windows saved.`);
      props.onSaved();
    }
  }

  return (
    <form class="stacked" onSubmit={submit}>
      <label>
        Maintenance windows, one a line: days, start, minutes open
        <textarea
          name="windows"
          rows={4}
          placeholder="sat,sun 02:00 240"
          defaultValue={(props.current ?? []).map(windowLine).join("\n")}
        />
      </label>
      <p class="hint">
        In the tenant's time zone. Outside them rollouts start no batch and operations wait (or are refused).
        No lines: {withoutWindows}.
      </p>
      <SubmitRow state={state} label="Save windows" busyLabel="Saving…" notice={notice} />
    </form>
  );
}

/** Sets the tenant's time zone, an IANA name; left empty, UTC applies. */
export function TimeZoneForm(props: {
  current: string | undefined;
  save: (timeZone: string | null) => Promise<unknown>;
  onSaved: () => void;
}) {
  const [state, run] = useAction();
  const [notice, setNotice] = useState<string>();

  async function submit(event: Event) {
    event.preventDefault();
    const text = String(new FormData(event.currentTarget as HTMLFormElement).get("timeZone") ?? "").trim();
    const saved = await run(async () => {
      await props.save(text === "" ? null : text);
      return true;
    });
    if (saved) {
      setNotice(text === "" ? "Unset: UTC applies." : `Windows keep ${text}.`);
      props.onSaved();
    }
  }

  return (
    <form class="stacked" onSubmit={submit}>
      <label>
        Time zone of maintenance windows
        <input name="timeZone" type="text" placeholder="Europe/Berlin" defaultValue={props.current ?? ""} />
      </label>
      <SubmitRow state={state} label="Save time zone" busyLabel="Saving…" notice={notice} />
    </form>
  );
}

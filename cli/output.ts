/** How `beacon` writes: tables for people, JSON for scripts, and the two streams a test can catch. */
import type { Schemas } from "../web/src/api/client.js";

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal, which progress lines are rewritten in place on. */
  isTerminal?: boolean;
}

export type Cell = string | number | boolean | undefined | null;

/** Columns padded to their widest cell, two spaces apart, the header in capitals; an empty cell is a dash. */
export function table(headers: string[], rows: Cell[][]): string {
  const text = [headers.map((header) => header.toUpperCase()), ...rows.map((row) => row.map(cellText))];
  const widths = headers.map((_, column) => Math.max(...text.map((row) => (row[column] ?? "").length)));
  return text
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** One field a line, names aligned: a single object for people. */
export function fields(entries: [string, Cell][]): string {
  const width = Math.max(...entries.map(([name]) => name.length));
  return entries.map(([name, value]) => `${`${name}:`.padEnd(width + 2)}${cellText(value)}`).join("\n");
}

function cellText(cell: Cell): string {
  if (cell === undefined || cell === null || cell === "") return "-";
  return String(cell);
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** A flow version as people name it: `v7 "kafka tls"`; undefined for one stored before versions were numbered. */
export function versionName(name: Schemas["FlowVersionName"] | undefined): string | undefined {
  if (name?.version === undefined) return undefined;
  return name.label ? `v${name.version} "${name.label}"` : `v${name.version}`;
}

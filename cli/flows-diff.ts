/**
 * `beacon flows diff`: what changed between two flow versions of a class, as a unified diff of their content.
 * JSON is pretty-printed first (an uploaded flow.json is often one line), so the diff is by line; YAML is
 * compared as uploaded. The lines are matched by jsdiff (the `diff` package), the hunks written here.
 */
import type { Command } from "commander";
import { structuredPatch } from "diff";
import { dataOf, type Schemas } from "../web/src/api/client.js";
import { shortHash } from "../web/src/format.js";
import { UsageError } from "./exit.js";
import { type CommandKit, integer } from "./kit.js";
import { versionName } from "./output.js";

/** How a version is named on the command line: its full hash, the start of it, or `v3`. */
export type VersionSpec = { hash: string } | { prefix: string } | { version: number };

const FULL_HASH = /^[0-9a-f]{64}$/;
const HASH_PREFIX = /^[0-9a-f]{4,63}$/;
const VERSION_NUMBER = /^v([1-9]\d*)$/;

export function versionSpec(text: string): VersionSpec {
  const value = text.toLowerCase();
  if (FULL_HASH.test(value)) return { hash: value };
  const number = VERSION_NUMBER.exec(value)?.[1];
  if (number !== undefined) return { version: Number(number) };
  if (HASH_PREFIX.test(value)) return { prefix: value };
  throw new UsageError(`${text} names no flow version: give its hash, at least its first 4 digits, or v3`);
}

/** The one version of the class that a spec names, among all of them; a usage error if none or several. */
export function matchVersion(
  className: string,
  text: string,
  versions: Schemas["FlowVersion"][],
): Schemas["FlowVersion"] {
  const spec = versionSpec(text);
  const matches = versions.filter((version) =>
    "hash" in spec
      ? version.hash === spec.hash
      : "prefix" in spec
        ? version.hash.startsWith(spec.prefix)
        : version.version === spec.version,
  );
  const [only, ...more] = matches;
  if (only === undefined) throw new UsageError(`Class ${className} has no flow version ${text}`);
  if (more.length > 0) {
    const named = matches.map((version) => shortHash(version.hash)).join(", ");
    throw new UsageError(
      `${text} names ${matches.length} versions of class ${className} (${named}): give more of the hash`,
    );
  }
  return only;
}

/** The content as it is compared: JSON indented two spaces with a final newline, anything else as it is. */
export function comparable(text: string, contentType: Schemas["FlowVersion"]["contentType"]): string {
  if (contentType !== "application/json") return text;
  try {
    return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
  } catch {
    return text;
  }
}

export interface DiffSide {
  label: string;
  text: string;
}

/** A unified diff (`--- `, `+++ `, `@@` hunks, as `diff -u` writes), or "" when the two texts are the same. */
export function unifiedDiff(from: DiffSide, to: DiffSide, context = 3): string {
  const patch = structuredPatch(from.label, to.label, from.text, to.text, undefined, undefined, { context });
  if (patch.hunks.length === 0) return "";
  const range = (start: number, lines: number) => (lines === 1 ? `${start}` : `${start},${lines}`);
  return [
    `--- ${from.label}`,
    `+++ ${to.label}`,
    ...patch.hunks.flatMap((hunk) => [
      // diff -u counts an empty side's start from the line before it: 0.
      `@@ -${range(hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart, hunk.oldLines)} +${range(
        hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart,
        hunk.newLines,
      )} @@`,
      ...hunk.lines,
    ]),
    "",
  ].join("\n");
}

export function addFlowsDiff(flows: Command, kit: CommandKit): void {
  flows
    .command("diff <className> <from> <to>")
    .description(
      "what changed from one flow version of a class to another, as a unified diff; name each version by its hash, the start of it, or v3",
    )
    .option("-U, --unified <lines>", "lines of context around each change", integer(0), 3)
    .action(async (className: string, from: string, to: string, options, command: Command) => {
      // A name that cannot be a version is a usage error, before any request.
      for (const text of [from, to]) versionSpec(text);
      const api = kit.client(command);
      const path = { className };
      // A full hash needs no listing; anything else is looked up among the class's versions.
      const listed: Schemas["FlowVersion"][] = [];
      const needsList = !FULL_HASH.test(from) || !FULL_HASH.test(to);
      if (needsList) {
        let cursor: string | undefined;
        do {
          const page = await dataOf(
            api.GET("/api/v1/classes/{className}/flows", { params: { path, query: { limit: 100, cursor } } }),
          );
          listed.push(...page.items);
          cursor = page.nextCursor;
        } while (cursor);
      }
      const version = async (text: string) =>
        needsList
          ? matchVersion(className, text, listed)
          : dataOf(
              api.GET("/api/v1/classes/{className}/flows/{hash}", {
                params: { path: { className, hash: text } },
              }),
            );
      const side = async (text: string) => {
        const flow = await version(text);
        const content = await dataOf(
          api.GET("/api/v1/classes/{className}/flows/{hash}/content", {
            params: { path: { className, hash: flow.hash } },
            parseAs: "text",
          }),
        );
        const label = [className, versionName(flow), flow.hash].filter(Boolean).join(" ");
        return { flow, label, text: comparable(content as string, flow.contentType) };
      };
      const [older, newer] = [await side(from), await side(to)];
      const diff = unifiedDiff(older, newer, options.unified);
      const named = ({ hash, version, label }: Schemas["FlowVersion"]) => ({ hash, version, label });
      kit.show(command, { from: named(older.flow), to: named(newer.flow), diff }, (result) =>
        result.diff === ""
          ? `${older.label} and ${newer.label} have the same content`
          : result.diff.trimEnd(),
      );
    });
}

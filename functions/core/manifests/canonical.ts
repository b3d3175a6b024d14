import { createHash } from "node:crypto";
import type { JsonObject } from "../json.js";

/**
 * Top-level fields of an agent manifest that describe the agent rather than its binary. The agent's
 * `agentManifestHash` covers them, which is why it differs between agents of one build: Java's
 * `supportedOperations` lists its UPDATE PROPERTIES `availableProperties` with their current values
 * (`c2.agent.identifier` among them), C++'s lists property values and, for START/STOP, every component
 * UUID of the running flow. `identifier` names a build (C++) or is a constant (Java's "minifi").
 */
export const PER_AGENT_FIELDS: readonly string[] = ["identifier", "supportedOperations"];

/** What an agent manifest says of the binary: the same for every agent of one build, whatever it runs. */
export interface BinaryManifest {
  /** The canonical identity: SHA-256 (lower-case hex) of `canonicalJson`. */
  manifestId: string;
  /**
   * The manifest without its per-agent fields, in its canonical form: the same bytes from every agent of
   * the build, so that concurrent writers of one identity write identical content.
   */
  canonicalJson: string;
}

export function binaryOf(manifest: JsonObject): BinaryManifest {
  const content = Object.fromEntries(
    Object.entries(manifest).filter(([field]) => !PER_AGENT_FIELDS.includes(field)),
  );
  const text = canonicalJson(content);
  return { manifestId: createHash("sha256").update(text).digest("hex"), canonicalJson: text };
}

/**
 * The binaries of the manifests this container read lately, at most `capacity`, so that another agent's
 * manifest of one of them is recognised by comparing it, field by field, with one read before: a small
 * part of canonicalising it (sorting and writing out ~900 KB for C++), which a herd of agents of one build
 * would otherwise pay once per agent, each reporting a hash of its own. A manifest equal to a kept one but
 * for the per-agent fields has its canonical form; any other (a difference anywhere, or only in order) is
 * canonicalised.
 */
export class RecentBinaries {
  // Most recently recognised first.
  private readonly kept: { manifest: JsonObject; binary: BinaryManifest }[] = [];

  constructor(private readonly capacity: number) {}

  binaryOf(manifest: JsonObject): BinaryManifest {
    const index = this.kept.findIndex((entry) => sameBinary(entry.manifest, manifest));
    const entry =
      index >= 0
        ? (this.kept.splice(index, 1)[0] as (typeof this.kept)[number])
        : { manifest: keptCopy(manifest), binary: binaryOf(manifest) };
    this.kept.unshift(entry);
    this.kept.length = Math.min(this.kept.length, this.capacity);
    return entry.binary;
  }
}

/**
 * A copy, as the request's manifest is its caller's to change as it likes once registered, but for its frozen
 * fields: those no one changes, which the next agent of the build brings as the same value (its bundles, which
 * the agent API parses once per build), and compare at once.
 */
const keptCopy = (manifest: JsonObject): JsonObject =>
  Object.fromEntries(
    Object.entries(manifest).map(([field, value]) => [
      field,
      Object.isFrozen(value) ? value : structuredClone(value),
    ]),
  );

/** Whether two manifests' fields other than the per-agent ones are equal, as JSON values (keys in any order). */
function sameBinary(kept: JsonObject, manifest: JsonObject): boolean {
  const fields = (of: JsonObject) => Object.keys(of).filter((field) => !PER_AGENT_FIELDS.includes(field));
  const keptFields = fields(kept);
  return (
    keptFields.length === fields(manifest).length &&
    keptFields.every((field) => Object.hasOwn(manifest, field) && sameJson(kept[field], manifest[field]))
  );
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => sameJson(item, b[index]));
  }
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && sameJson((a as JsonObject)[key], (b as JsonObject)[key]))
  );
}

/**
 * One text for every way agents lay out the same content: object keys sorted, arrays sorted (their order
 * says nothing about a binary: C++ lists bundles in registry order, Java in class path order), and
 * numbers and booleans written as strings, as the C++ manifest dump writes its leaves (`"required":"false"`).
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).sort().join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as JsonObject)[key])}`);
    return `{${entries.join(",")}}`;
  }
  if (typeof value === "number" || typeof value === "boolean") return JSON.stringify(String(value));
  return JSON.stringify(value);
}

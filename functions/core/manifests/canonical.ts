import { createHash } from "node:crypto";
import type { JsonObject } from "../c2/json.js";

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

/**
 * Putting an agent's values into a flow version's bytes, without reading the document again: where each value
 * goes was found once, when the version was published (valueSlotsOf in parameters.ts), so what renders a flow
 * for each download (the agent API) needs no YAML parser.
 */

/**
 * Where one parameter's value goes in a flow's text (UTF-16 offsets, as the text decodes): the bytes from `at`
 * to `end` are replaced by the quoted value, between `before` and `after` (a value a parameter did not have
 * yet comes with its key).
 */
export interface ValueSlot {
  parameter: string;
  at: number;
  end: number;
  before?: string;
  after?: string;
}

/** JSON's string quoting, which is also YAML's double-quoted scalar, with what YAML reads as breaks escaped. */
const quoted = (value: string): string =>
  JSON.stringify(value).replace(
    /[\u007f-\u009f\u2028\u2029\ufeff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );

/**
 * The flow with the values put into its parameter contexts: each value goes into every slot of its parameter;
 * a parameter without a value keeps the flow's own. Everything else keeps its bytes, so the same document and
 * values always render the same bytes, JSON stays JSON and YAML stays the YAML the C++ agent reads.
 */
export function renderFlow(
  documentBytes: Uint8Array,
  slots: readonly ValueSlot[],
  values: ReadonlyMap<string, string>,
): Uint8Array {
  const text = new TextDecoder("utf-8", { fatal: true }).decode(documentBytes);
  let rendered = text;
  for (const slot of [...slots].sort((a, b) => b.at - a.at)) {
    const value = values.get(slot.parameter);
    if (value === undefined) continue;
    rendered = `${rendered.slice(0, slot.at)}${slot.before ?? ""}${quoted(value)}${slot.after ?? ""}${rendered.slice(slot.end)}`;
  }
  return new TextEncoder().encode(rendered);
}

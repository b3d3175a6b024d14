import type { ParameterRecord, StagedChange } from "./model.js";

/**
 * A class's values once its staged changes are in force: each change replaces the name's value, or
 * removes it; names no change concerns keep theirs. By name, as the store lists them.
 */
export function valuesWithChanges(
  inForce: readonly ParameterRecord[],
  changes: readonly StagedChange[],
): ParameterRecord[] {
  const byName = new Map(inForce.map((record) => [record.name, record]));
  for (const { value, ...change } of changes) {
    if (value === undefined) byName.delete(change.name);
    else byName.set(change.name, { ...change, value });
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

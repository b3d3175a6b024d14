import { BeaconError } from "../errors.js";

/** An agent's labels, by key: what selectors and, later, saved groups match agents by. */
export type Labels = Readonly<Record<string, string>>;

/** What a console request changes of an agent's labels: keys set to values, keys removed. */
export interface LabelChange {
  set?: Labels;
  remove?: readonly string[];
}

/**
 * One term of a label selector, AND-ed with the others: the key with this value, or (without a value)
 * the key present with any value.
 */
export interface LabelRequirement {
  key: string;
  value?: string;
}

/** As Kubernetes bounds its labels, so that labels carried over from there fit. */
export const MAX_LABELS = 32;
const NAME = "[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?";
const PREFIX = "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*";
const KEY = new RegExp(`^((?=.{1,253}/)${PREFIX}/)?${NAME}$`);
const VALUE = new RegExp(`^(${NAME})?$`);

export const isLabelKey = (key: string) => KEY.test(key);
export const isLabelValue = (value: string) => VALUE.test(value);

const KEY_RULE =
  "a name of at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, " +
  "optionally after a DNS prefix and '/'";
const VALUE_RULE =
  "empty or at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit";

function requireKey(key: string): void {
  if (!isLabelKey(key)) throw new BeaconError("invalid_request", `Label key "${key}" is not ${KEY_RULE}`);
}

function requireValue(key: string, value: string): void {
  if (!isLabelValue(value))
    throw new BeaconError(
      "invalid_request",
      `Label "${key}" has value "${value}", which is not ${VALUE_RULE}`,
    );
}

/** Refuses a change that sets or removes a malformed key, or sets a key it also removes. */
export function validateLabelChange(change: LabelChange): void {
  const set = Object.entries(change.set ?? {});
  const remove = change.remove ?? [];
  if (set.length === 0 && remove.length === 0)
    throw new BeaconError("invalid_request", "Name labels to set or to remove");
  for (const [key, value] of set) {
    requireKey(key);
    requireValue(key, value);
  }
  for (const key of remove) requireKey(key);
  const both = remove.find((key) => Object.hasOwn(change.set ?? {}, key));
  if (both !== undefined) throw new BeaconError("invalid_request", `Label "${both}" is both set and removed`);
}

/** The labels after the change (taken as validated); undefined when they would be more than an agent may have. */
export function labelsAfter(labels: Labels | undefined, change: LabelChange): Labels | undefined {
  const next: Record<string, string> = { ...labels, ...change.set };
  for (const key of change.remove ?? []) delete next[key];
  return Object.keys(next).length > MAX_LABELS ? undefined : next;
}

export const tooManyLabels = () =>
  new BeaconError("invalid_request", `An agent has at most ${MAX_LABELS} labels`);

/** Whether the change leaves the labels as they are. */
export const changesNothing = (labels: Labels | undefined, next: Labels) => {
  const before = Object.entries(labels ?? {});
  return before.length === Object.keys(next).length && before.every(([key, value]) => next[key] === value);
};

/** A selector's terms, `key=value` or `key`, as the agent list's `label` parameter and selectors spell them. */
export function parseLabelSelector(terms: readonly string[]): LabelRequirement[] {
  return terms.map((term) => {
    const equals = term.indexOf("=");
    const key = equals < 0 ? term : term.slice(0, equals);
    requireKey(key);
    if (equals < 0) return { key };
    const value = term.slice(equals + 1);
    requireValue(key, value);
    return { key, value };
  });
}

/** The labels an agent answers to: those read from its reports, under those operators set. */
export const effectiveLabels = (agent: { labels?: Labels; reportedLabels?: Labels }): Labels => ({
  ...agent.reportedLabels,
  ...agent.labels,
});

/** Whether the labels meet every requirement. */
export const matchesLabels = (labels: Labels | undefined, requirements: readonly LabelRequirement[]) =>
  requirements.every(({ key, value }) =>
    value === undefined ? Object.hasOwn(labels ?? {}, key) : labels?.[key] === value,
  );

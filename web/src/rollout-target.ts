import type { components } from "./api/schema.js";

type RolloutRequest = components["schemas"]["RolloutRequest"];

/** Which of the class's agents a new rollout takes: all of them, a group's members, or those with some labels. */
export type RolloutTargetKind = "class" | "group" | "selector";

/** The target part of the new-rollout form, as its fields hold it. */
export interface RolloutTargetFields {
  kind: RolloutTargetKind;
  group: string;
  /** Label terms, commas between, as the agent list's label filter takes them. */
  labels: string;
  continuous: boolean;
}

/** `key=value` or `key` terms, commas between, each trimmed; empty ones are dropped. */
export function labelTermsOf(text: string): string[] {
  return text
    .split(",")
    .map((term) => term.trim())
    .filter(Boolean);
}

/**
 * The request's `group`, `selector` and `continuous` for what the form says, or why it says too little.
 * A whole-class rollout is never continuous: the API takes `continuous` only with a group or a selector.
 */
export function rolloutTargetOf(
  fields: RolloutTargetFields,
): Pick<RolloutRequest, "group" | "selector" | "continuous"> {
  const continuous = fields.continuous ? { continuous: true } : {};
  switch (fields.kind) {
    case "class":
      return {};
    case "group": {
      const group = fields.group.trim();
      if (group === "") throw new Error("Choose the group whose members of the class the rollout takes.");
      return { group, ...continuous };
    }
    case "selector": {
      const labels = labelTermsOf(fields.labels);
      if (labels.length === 0)
        throw new Error("Name at least one label term: key=value, or key for the key with any value.");
      return { selector: { labels }, ...continuous };
    }
  }
}

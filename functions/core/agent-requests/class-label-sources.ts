import type { LabelSource } from "../agents/label-sources.js";
import type { ClassAgentSettings } from "../agents/ports.js";
import { RecentlyUsed } from "../recently-used.js";

/** How long one container reuses a class's label sources: a change reaches its agents' manifests within it. */
export const LABEL_SOURCES_KEPT_MS = 60_000;
const CLASSES_KEPT = 1_000;

/**
 * The classes' label sources as one container knows them, read with the class's settings at most once a
 * `LABEL_SOURCES_KEPT_MS` a class: a herd of agents registering in one class costs one read, not one each.
 */
export function makeClassLabelSources() {
  const known = new RecentlyUsed<string, { sources: LabelSource[]; until: number }>(CLASSES_KEPT);
  return {
    async of(
      tenant: string,
      className: string,
      now: number,
      read: () => Promise<ClassAgentSettings>,
    ): Promise<LabelSource[]> {
      const key = `${tenant}/${className}`;
      const kept = known.get(key);
      if (kept && kept.until > now) return kept.sources;
      const { labelSources = [] } = await read();
      known.set(key, { sources: labelSources, until: now + LABEL_SOURCES_KEPT_MS });
      return labelSources;
    },
  };
}

export type ClassLabelSources = ReturnType<typeof makeClassLabelSources>;

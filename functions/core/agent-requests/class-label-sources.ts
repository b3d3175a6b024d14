import type { LabelSource } from "../agents/label-sources.js";
import type { ClassAgentSettings } from "../agents/ports.js";
import { KeptFor } from "../recently-used.js";

/** How long one container reuses a class's label sources: a change reaches its agents' manifests within it. */
export const LABEL_SOURCES_KEPT_MS = 60_000;
const CLASSES_KEPT = 1_000;

/**
 * The classes' label sources as one container knows them, read with the class's settings at most once a
 * `LABEL_SOURCES_KEPT_MS` a class: a herd of agents registering in one class costs one read, not one each.
 */
export function makeClassLabelSources() {
  const known = new KeptFor<string, LabelSource[]>(CLASSES_KEPT, LABEL_SOURCES_KEPT_MS);
  const remember = (tenant: string, className: string, sources: LabelSource[], now: number) =>
    known.set(`${tenant}/${className}`, sources, now);
  return {
    /** What a read of the class's settings for another reason said: no read for the labels of its agents. */
    remember,
    async of(
      tenant: string,
      className: string,
      now: number,
      read: () => Promise<ClassAgentSettings>,
    ): Promise<LabelSource[]> {
      const kept = known.get(`${tenant}/${className}`, now);
      if (kept) return kept;
      const { labelSources = [] } = await read();
      remember(tenant, className, labelSources, now);
      return labelSources;
    },
  };
}

export type ClassLabelSources = ReturnType<typeof makeClassLabelSources>;

import { parseLabelSelector } from "../agents/labels.js";
import type { AgentStatus } from "../agents/status.js";
import { isClassName } from "../c2/class-name.js";
import { BeaconError } from "../errors.js";
import type { AgentFilters } from "../fleet/agents.js";
import { isManifestId } from "../manifests/catalog.js";
import type { ManifestRecord } from "../manifests/ports.js";
import { type ComponentCriterion, canRun } from "./components.js";
import { inRange, rangeProblems, type VersionRange } from "./versions.js";

/**
 * A group's saved query: an agent is a member when it meets every criterion given (a list's entries are
 * alternatives, but `labels` and `components`, which must all hold). No criterion at all is the whole fleet.
 */
export interface GroupQuery {
  /** Agents of any of these classes. */
  classes?: string[];
  /** Label terms, `key=value` or `key`, as AgentSelector.labels spells them: every one holds. */
  labels?: string[];
  /** The binary's `agentType` as its manifest states it (`minifi-java`, `cpp`, …). */
  agentType?: string;
  /** The binary's version as its manifest states it. */
  agentVersion?: VersionRange;
  /** Binaries by canonical identity (manifestId). */
  manifestIds?: string[];
  /** Components the agent's binary lists, every one of them. */
  components?: ComponentCriterion[];
  flowId?: string;
  /** As the agent reports its device (`deviceInfo.systemInfo`), exactly. */
  operatingSystem?: string;
  machineArch?: string;
  status?: AgentStatus;
  /** Seen within the last so many minutes. */
  seenWithinMinutes?: number;
  /** Silent for at least so many minutes. */
  silentForMinutes?: number;
}

/** Whether the query says anything of the binary, which the manifest catalog answers before the registry is read. */
export const namesBinaries = (query: GroupQuery): boolean =>
  query.agentType !== undefined ||
  query.agentVersion !== undefined ||
  query.manifestIds !== undefined ||
  query.components !== undefined;

/** Refuses a query a person could not have meant: unknown classes' names, bad label terms or version ranges. */
export function validateGroupQuery(query: GroupQuery): void {
  const problems = [
    ...(query.classes ?? []).filter((name) => !isClassName(name)).map((name) => `"${name}" is no class name`),
    ...(query.manifestIds ?? [])
      .filter((manifestId) => !isManifestId(manifestId))
      .map((manifestId) => `"${manifestId}" is no manifest id`),
    ...(query.agentVersion
      ? rangeProblems(query.agentVersion).map((problem) => `agentVersion: ${problem}`)
      : []),
    ...(query.components ?? []).flatMap((component, index) =>
      component.version
        ? rangeProblems(component.version).map((problem) => `components[${index}].version: ${problem}`)
        : [],
    ),
    ...(query.seenWithinMinutes !== undefined &&
    query.silentForMinutes !== undefined &&
    query.silentForMinutes >= query.seenWithinMinutes
      ? ["no agent is seen within the last seenWithinMinutes and silent for silentForMinutes or more"]
      : []),
  ];
  if (problems.length > 0)
    throw new BeaconError("invalid_request", `The group's query: ${problems.join("; ")}`);
  // Throws on a malformed term, as the agent list's filter does.
  parseLabelSelector(query.labels ?? []);
}

/** A tenant's binary as the query reads it: its catalog record and, when the query names components, its content. */
export interface Binary {
  record: ManifestRecord;
  content?: Record<string, unknown>;
}

/** The binaries the query's binary criteria hold for. */
export function matchingBinaries(query: GroupQuery, binaries: readonly Binary[]): string[] {
  return binaries
    .filter(
      ({ record, content }) =>
        (query.agentType === undefined || record.agentType === query.agentType) &&
        (query.agentVersion === undefined || inRange(record.version, query.agentVersion)) &&
        (query.manifestIds === undefined || query.manifestIds.includes(record.manifestId)) &&
        (query.components ?? []).every((component) => content !== undefined && canRun(content, component)),
    )
    .map(({ record }) => record.manifestId);
}

const MINUTE_MS = 60_000;

/**
 * The agent list's filters that pick the group's members at `now`, given the binaries its binary criteria
 * hold for (`undefined` when it names none): undefined when no agent can be one (no binary matches).
 */
export function filtersOfGroup(
  query: GroupQuery,
  binaries: readonly string[] | undefined,
  now: number,
): AgentFilters | undefined {
  if (binaries !== undefined && binaries.length === 0) return undefined;
  const classes = query.classes ?? [];
  return {
    ...(classes.length === 1 ? { agentClass: classes[0] } : {}),
    ...(classes.length > 1 ? { agentClasses: classes } : {}),
    ...(binaries === undefined ? {} : { manifestIds: binaries }),
    ...(query.labels === undefined ? {} : { labels: parseLabelSelector(query.labels) }),
    ...(query.flowId === undefined ? {} : { flowId: query.flowId }),
    ...(query.operatingSystem === undefined ? {} : { operatingSystem: query.operatingSystem }),
    ...(query.machineArch === undefined ? {} : { machineArch: query.machineArch }),
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.seenWithinMinutes === undefined
      ? {}
      : { lastSeenAfter: now - query.seenWithinMinutes * MINUTE_MS }),
    ...(query.silentForMinutes === undefined
      ? {}
      : { lastSeenBefore: now - query.silentForMinutes * MINUTE_MS }),
  };
}

/** Whether the filters need the cache's hot values (status, last seen), which a registry count cannot see. */
export const needsHotState = (filters: AgentFilters): boolean =>
  filters.status !== undefined || filters.lastSeenAfter !== undefined || filters.lastSeenBefore !== undefined;

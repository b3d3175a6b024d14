import { availablePropertiesOf } from "../c2/heartbeat-period.js";
import type { DeviceSummary } from "../c2/model.js";
import { BeaconError } from "../errors.js";
import { asObject, asString } from "../json.js";
import { isLabelKey, isLabelValue, type Labels, MAX_LABELS } from "./labels.js";

/**
 * Where a class takes one of its agents' reported labels from, spelled `kind:name`:
 * - `device:<field>`: what the agent reports of its host in `deviceInfo` (DEVICE_FIELDS);
 * - `agent:<field>`: what its manifest says of the agent itself (AGENT_FIELDS);
 * - `property:<name>`: the value of a property its manifest lists in the UPDATE PROPERTIES entry's
 *   `availableProperties` (MiNiFi C++ `nifi.…`, Java `c2.…`).
 */
export interface LabelSource {
  label: string;
  from: string;
}

/** Most label sources a class may name: each could give its agents a label. */
export const MAX_LABEL_SOURCES = MAX_LABELS;

type ReportedText = (reported: ReportedAgent) => string | undefined;

/** The `deviceInfo` fields, as the heartbeat's device summary names them. */
const DEVICE_FIELDS: Record<string, ReportedText> = {
  hostname: ({ device }) => device?.hostname,
  ipAddress: ({ device }) => device?.ipAddress,
  operatingSystem: ({ device }) => device?.operatingSystem,
  machineArch: ({ device }) => device?.machineArch,
  deviceId: ({ device }) => device?.deviceId,
};

/** The manifest's own fields: `agentType` (`cpp`, `minifi-java`), and the version Java states and C++ builds. */
const AGENT_FIELDS: Record<string, ReportedText> = {
  agentType: ({ manifest }) => asString(manifest?.agentType),
  version: ({ manifest }) => asString(manifest?.version) ?? asString(asObject(manifest?.buildInfo)?.version),
};

/** What an agent reports that labels can be taken from: its device, and its manifest as it sent it. */
export interface ReportedAgent {
  device?: DeviceSummary;
  manifest?: Record<string, unknown>;
}

const KINDS = ["device", "agent", "property"] as const;

function readerOf(from: string): ReportedText | undefined {
  const colon = from.indexOf(":");
  const kind = from.slice(0, colon);
  const name = from.slice(colon + 1);
  if (colon < 0 || name === "") return undefined;
  if (kind === "device") return Object.hasOwn(DEVICE_FIELDS, name) ? DEVICE_FIELDS[name] : undefined;
  if (kind === "agent") return Object.hasOwn(AGENT_FIELDS, name) ? AGENT_FIELDS[name] : undefined;
  if (kind === "property")
    return ({ manifest }) => {
      const properties = availablePropertiesOf(
        Array.isArray(manifest?.supportedOperations) ? manifest.supportedOperations : [],
      );
      return asString(properties.find((property) => property?.propertyName === name)?.propertyValue);
    };
  return undefined;
}

/** Refuses sources with a malformed label key, a label named twice, or a source Beacon cannot read. */
export function validateLabelSources(sources: readonly LabelSource[]): void {
  if (sources.length > MAX_LABEL_SOURCES)
    throw new BeaconError("invalid_request", `A class has at most ${MAX_LABEL_SOURCES} label sources`);
  const seen = new Set<string>();
  for (const { label, from } of sources) {
    if (!isLabelKey(label))
      throw new BeaconError("invalid_request", `Label source "${label}" is no valid label key`);
    if (seen.has(label))
      throw new BeaconError("invalid_request", `Label "${label}" has more than one source`);
    seen.add(label);
    if (readerOf(from) === undefined)
      throw new BeaconError(
        "invalid_request",
        `Label "${label}" is taken from "${from}", which is none of ` +
          `${KINDS.map((kind) => `${kind}:`).join(", ")} with ` +
          `device: ${Object.keys(DEVICE_FIELDS).join(", ")}; agent: ${Object.keys(AGENT_FIELDS).join(", ")}; ` +
          "property: a property name",
      );
  }
}

/**
 * The labels the agent's report gives under the class's sources (taken as validated). A source the agent
 * reports nothing for gives no label, nor does a value that is no valid label value (a C++ time period
 * such as `30 sec`, say): a label filter could not name it.
 */
export function reportedLabelsOf(sources: readonly LabelSource[], reported: ReportedAgent): Labels {
  const labels: Record<string, string> = {};
  for (const { label, from } of sources) {
    const value = readerOf(from)?.(reported)?.trim();
    if (value !== undefined && value !== "" && isLabelValue(value)) labels[label] = value;
  }
  return labels;
}

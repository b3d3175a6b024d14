import { asArray, asBoolean, asNumber, asObject, asString, dropUndefined, type JsonObject } from "./json.js";
import type { DeviceSummary, Heartbeat, StatusSummary } from "./model.js";

/** A heartbeat before Beacon knows which agent it speaks for (the certificate may have to say). */
export type UnattributedHeartbeat = Omit<Heartbeat, "agentId"> & { agentId?: string };

/**
 * Reads a heartbeat of either dialect. Sections the C++ agent omits when
 * `heartbeat.minimize.updates` is on stay undefined, so callers keep the last known value.
 */
export function normalizeHeartbeat(body: JsonObject): UnattributedHeartbeat {
  const agentInfo = asObject(body.agentInfo);
  const flowInfo = asObject(body.flowInfo);
  const manifest = asObject(agentInfo?.agentManifest);
  return {
    agentId: asString(agentInfo?.identifier) ?? asString(body.agentId),
    agentClass: asString(agentInfo?.agentClass) ?? asString(body.agentClass),
    manifestHash: asString(agentInfo?.agentManifestHash),
    manifest,
    device: deviceSummary(asObject(body.deviceInfo)),
    flowId: flowInfo ? flowIdOf(flowInfo) : undefined,
    runStatus: asString(flowInfo?.runStatus)?.toUpperCase(),
    status: agentInfo || flowInfo ? statusSummary(asObject(agentInfo?.status), flowInfo) : undefined,
  };
}

function flowIdOf(flowInfo: JsonObject): string | undefined {
  return (
    asString(flowInfo.flowId) ??
    asString(asObject(flowInfo.versionedFlowSnapshotURI)?.flowId) ??
    flowIdFromUri(asString(asObject(flowInfo.flowUri)?.uriString))
  );
}

/** The Java agent reports `.../flows/{flowId}/content`: the 4th path segment is the flow id. */
function flowIdFromUri(uri: string | undefined): string | undefined {
  if (!uri) return undefined;
  try {
    const segments = new URL(uri).pathname.split("/").filter(Boolean);
    return segments[3];
  } catch {
    return undefined;
  }
}

function deviceSummary(deviceInfo: JsonObject | undefined): DeviceSummary | undefined {
  if (!deviceInfo) return undefined;
  const systemInfo = asObject(deviceInfo.systemInfo);
  const networkInfo = asObject(deviceInfo.networkInfo);
  return dropUndefined({
    deviceId: asString(deviceInfo.identifier),
    hostname: asString(networkInfo?.hostname),
    ipAddress: asString(networkInfo?.ipAddress),
    operatingSystem: asString(systemInfo?.operatingSystem),
    machineArch: asString(systemInfo?.machineArch),
    vCores: asNumber(systemInfo?.vCores),
    physicalMemory: asNumber(systemInfo?.physicalMem),
  });
}

function statusSummary(status: JsonObject | undefined, flowInfo: JsonObject | undefined): StatusSummary {
  const queues = Object.values(asObject(flowInfo?.queues) ?? {}).map(asObject);
  const bulletins = asArray(flowInfo?.processorBulletins).map(asObject);
  const repositories = Object.values(asObject(status?.repositories) ?? {}).map(asObject);
  const bulletinsAt = (level: string) =>
    bulletins.filter((bulletin) => asString(bulletin?.level)?.toUpperCase() === level).length;
  return dropUndefined({
    uptime: asNumber(status?.uptime),
    queueCount: flowInfo?.queues === undefined ? undefined : queues.length,
    queuedFlowFiles:
      flowInfo?.queues === undefined ? undefined : sum(queues.map((queue) => asNumber(queue?.size))),
    queuedBytes:
      flowInfo?.queues === undefined ? undefined : sum(queues.map((queue) => asNumber(queue?.dataSize))),
    errorBulletins: flowInfo?.processorBulletins === undefined ? undefined : bulletinsAt("ERROR"),
    warningBulletins: flowInfo?.processorBulletins === undefined ? undefined : bulletinsAt("WARN"),
    repositoriesFull:
      status?.repositories === undefined
        ? undefined
        : repositories.filter((repository) => asBoolean(repository?.full) === true).length,
  });
}

const sum = (values: (number | undefined)[]): number =>
  values.reduce<number>((total, value) => total + (value ?? 0), 0);

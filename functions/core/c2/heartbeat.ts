import { isClassName } from "../agents/class-name.js";
import {
  asArray,
  asBoolean,
  asNumber,
  asObject,
  asString,
  dropUndefined,
  type JsonObject,
  truncate,
} from "./json.js";
import type {
  Bulletin,
  DeviceSummary,
  Heartbeat,
  QueueStatus,
  RepositoryStatus,
  StatusSummary,
} from "./model.js";

/** Bounds on what one heartbeat may leave in the hot state, whatever the flow's size. */
export const HotDetailLimits = { queues: 100, bulletins: 10, messageLength: 500 } as const;

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
  const agentClass = asString(agentInfo?.agentClass) ?? asString(body.agentClass);
  const classIsValid = agentClass === undefined || isClassName(agentClass);
  return {
    agentId: asString(agentInfo?.identifier) ?? asString(body.agentId),
    agentClass: classIsValid ? agentClass : undefined,
    refusedAgentClass: classIsValid ? undefined : truncate(agentClass, 200),
    manifestHash: asString(agentInfo?.agentManifestHash),
    manifest,
    device: deviceSummary(asObject(body.deviceInfo)),
    flowId: flowInfo ? flowIdOf(flowInfo) : undefined,
    runStatus: asString(flowInfo?.runStatus)?.toUpperCase(),
    status: agentInfo || flowInfo ? statusSummary(asObject(agentInfo?.status), flowInfo) : undefined,
    repositories: repositoriesOf(asObject(asObject(agentInfo?.status)?.repositories)),
    queues: queuesOf(asObject(flowInfo?.queues)),
    bulletins:
      flowInfo?.processorBulletins === undefined
        ? undefined
        : bulletinsOf(asArray(flowInfo.processorBulletins)),
  };
}

function repositoriesOf(repositories: JsonObject | undefined): RepositoryStatus[] | undefined {
  if (!repositories) return undefined;
  return Object.entries(repositories).map(([name, value]) => {
    const repository = asObject(value);
    return dropUndefined({
      name,
      size: asNumber(repository?.size),
      maxSize: asNumber(repository?.maxSize) ?? asNumber(repository?.sizeMax),
      dataSize: asNumber(repository?.dataSize),
      dataSizeMax: asNumber(repository?.dataSizeMax),
      entryCount: asNumber(repository?.entryCount),
      full: asBoolean(repository?.full),
      running: asBoolean(repository?.running),
    });
  });
}

function queuesOf(queues: JsonObject | undefined): QueueStatus[] | undefined {
  if (!queues) return undefined;
  return Object.entries(queues)
    .slice(0, HotDetailLimits.queues)
    .map(([id, value]) => {
      const queue = asObject(value);
      return dropUndefined({
        id,
        name: truncate(asString(queue?.name), 200),
        size: asNumber(queue?.size),
        sizeMax: asNumber(queue?.sizeMax),
        dataSize: asNumber(queue?.dataSize),
        dataSizeMax: asNumber(queue?.dataSizeMax),
      });
    });
}

/** The latest bulletins: agents list them oldest first. */
function bulletinsOf(bulletins: unknown[]): Bulletin[] {
  return bulletins.slice(-HotDetailLimits.bulletins).map((value) => {
    const bulletin = asObject(value);
    return dropUndefined({
      level: asString(bulletin?.level)?.toUpperCase(),
      message: truncate(asString(bulletin?.message), HotDetailLimits.messageLength),
      category: truncate(asString(bulletin?.category), 200),
      sourceName: truncate(asString(bulletin?.sourceName), 200),
      timestamp: asNumber(bulletin?.timestamp),
    });
  });
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

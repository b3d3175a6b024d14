import {
  asArray,
  asBoolean,
  asCount,
  asNumber,
  asObject,
  asString,
  dropUndefined,
  type JsonObject,
  truncate,
} from "../json.js";
import { isClassName } from "./class-name.js";
import type {
  Bulletin,
  BulletinIds,
  ConfigurationChecksums,
  DeviceSummary,
  Heartbeat,
  ProcessorStatus,
  QueueStatus,
  RepositoryStatus,
  StatusSummary,
  SystemLoad,
} from "./model.js";

/** Bounds on what one heartbeat may leave in the hot state, whatever the flow's size. */
export const HotDetailLimits = {
  queues: 100,
  bulletins: 10,
  messageLength: 500,
  /** Names, ids and other short texts an agent reports: cut to this many characters. */
  textLength: 200,
  processors: 100,
  repositories: 10,
  /** Checksum algorithms, and files per algorithm. */
  checksums: 10,
} as const;

/**
 * The longest flow id Beacon keeps, as the heartbeat's schema bounds `flowInfo.flowId`: one read elsewhere
 * (a flow URI, an acknowledgement) that is longer is no flow id Beacon could match, and is dropped, not cut.
 */
export const FLOW_ID_MAX_LENGTH = 256;

/** What the C++ agent reports as `resourceInfo.hash` while it holds no synchronised resource. */
const NO_RESOURCES = "null";

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
  const resourceInfo = asObject(body.resourceInfo);
  const agentClass = asString(agentInfo?.agentClass) ?? asString(body.agentClass);
  const classIsValid = agentClass === undefined || isClassName(agentClass);
  return {
    agentId: asString(agentInfo?.identifier) ?? asString(body.agentId),
    agentClass: classIsValid ? agentClass : undefined,
    refusedAgentClass: classIsValid ? undefined : shortText(agentClass),
    manifestHash: asString(agentInfo?.agentManifestHash),
    manifest,
    device: deviceSummary(asObject(body.deviceInfo)),
    flowId: flowInfo ? flowIdOf(flowInfo) : undefined,
    runStatus: shortText(asString(flowInfo?.runStatus)?.toUpperCase()),
    status: agentInfo || flowInfo ? statusSummary(asObject(agentInfo?.status), flowInfo) : undefined,
    repositories: repositoriesOf(asObject(asObject(agentInfo?.status)?.repositories)),
    queues: queuesOf(asObject(flowInfo?.queues)),
    bulletins:
      flowInfo?.processorBulletins === undefined
        ? undefined
        : bulletinsOf(asArray(flowInfo.processorBulletins)),
    bulletinIds:
      flowInfo?.processorBulletins === undefined
        ? undefined
        : bulletinIdsOf(asArray(flowInfo.processorBulletins)),
    processors:
      flowInfo?.processorStatuses === undefined
        ? undefined
        : processorStatusesOf(asArray(flowInfo.processorStatuses)),
    resourceHash: resourceInfo ? resourceHashOf(asString(resourceInfo.hash)) : undefined,
    system: systemLoadOf(asObject(asObject(body.deviceInfo)?.systemInfo)),
    configurationChecksums: checksumsOf(asObject(body.configurationChecksums)),
  };
}

/** Each processor's run status, upper-cased: the C++ agent wrote `Running` before 0.99.1. */
function processorStatusesOf(statuses: unknown[]): ProcessorStatus[] {
  return statuses.slice(0, HotDetailLimits.processors).flatMap((value) => {
    const status = asObject(value);
    const id = shortText(asString(status?.id));
    return id
      ? [dropUndefined({ id, runStatus: shortText(asString(status?.runStatus)?.toUpperCase()) })]
      : [];
  });
}

const resourceHashOf = (hash: string | undefined): string | null | undefined =>
  hash === NO_RESOURCES ? null : shortText(hash);

function systemLoadOf(systemInfo: JsonObject | undefined): SystemLoad | undefined {
  if (!systemInfo) return undefined;
  const load = dropUndefined({
    cpuUtilization: asNumber(systemInfo.cpuUtilization),
    cpuLoadAverage: asNumber(systemInfo.cpuLoadAverage),
    memoryUsage: asNumber(systemInfo.memoryUsage),
  });
  return Object.keys(load).length > 0 ? load : undefined;
}

/** `{SHA256: {"minifi.properties": "<hex>", ...}}`, bounded in algorithms, files and lengths. */
function checksumsOf(checksums: JsonObject | undefined): ConfigurationChecksums | undefined {
  if (!checksums) return undefined;
  const limit = HotDetailLimits.checksums;
  return Object.fromEntries(
    Object.entries(checksums)
      .slice(0, limit)
      .map(([algorithm, files]) => [
        truncate(algorithm, 50) as string,
        Object.fromEntries(
          Object.entries(asObject(files) ?? {})
            .slice(0, limit)
            .flatMap(([file, digest]) => {
              const value = shortText(asString(digest));
              return value ? [[shortText(file) as string, value]] : [];
            }),
        ),
      ]),
  );
}

function repositoriesOf(repositories: JsonObject | undefined): RepositoryStatus[] | undefined {
  if (!repositories) return undefined;
  return Object.entries(repositories)
    .slice(0, HotDetailLimits.repositories)
    .map(([name, value]) => {
      const repository = asObject(value);
      return dropUndefined({
        name: shortText(name) as string,
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
      const levels = queueLevelsOf(queue);
      return dropUndefined({
        id: shortText(id) as string,
        name: shortText(asString(queue?.name)),
        ...levels,
        backPressure: backPressureOf(levels),
      });
    });
}

const queueLevelsOf = (queue: JsonObject | undefined) => ({
  size: asNumber(queue?.size),
  sizeMax: asNumber(queue?.sizeMax),
  dataSize: asNumber(queue?.dataSize),
  dataSizeMax: asNumber(queue?.dataSizeMax),
});

/** A limit of 0 or none is no limit (the C++ agent reports `sizeMax: 0` for an unbounded queue). */
function backPressureOf(queue: ReturnType<typeof queueLevelsOf>): boolean | undefined {
  const atLimit = (value: number | undefined, limit: number | undefined) =>
    limit !== undefined && limit > 0 ? (value ?? 0) >= limit : undefined;
  const bySize = atLimit(queue.size, queue.sizeMax);
  const byData = atLimit(queue.dataSize, queue.dataSizeMax);
  return bySize === undefined && byData === undefined ? undefined : bySize === true || byData === true;
}

function bulletinIdsOf(bulletins: unknown[]): BulletinIds {
  const errors: number[] = [];
  let highest: number | undefined;
  for (const value of bulletins) {
    const bulletin = asObject(value);
    const id = asNumber(bulletin?.id);
    if (id === undefined) continue;
    if (highest === undefined || id > highest) highest = id;
    if (asString(bulletin?.level)?.toUpperCase() === "ERROR") errors.push(id);
  }
  return dropUndefined({ highest, errors });
}

/** The latest bulletins: agents list them oldest first. */
function bulletinsOf(bulletins: unknown[]): Bulletin[] {
  return bulletins.slice(-HotDetailLimits.bulletins).map((value) => {
    const bulletin = asObject(value);
    return dropUndefined({
      level: shortText(asString(bulletin?.level)?.toUpperCase()),
      message: truncate(asString(bulletin?.message), HotDetailLimits.messageLength),
      category: shortText(asString(bulletin?.category)),
      sourceName: shortText(asString(bulletin?.sourceName)),
      timestamp: asNumber(bulletin?.timestamp),
    });
  });
}

function flowIdOf(flowInfo: JsonObject): string | undefined {
  return flowIdWithin(
    asString(flowInfo.flowId) ??
      asString(asObject(flowInfo.versionedFlowSnapshotURI)?.flowId) ??
      flowIdFromUri(asString(asObject(flowInfo.flowUri)?.uriString)),
  );
}

/** The flow id when it is one Beacon keeps (FLOW_ID_MAX_LENGTH). */
export const flowIdWithin = (flowId: string | undefined): string | undefined =>
  flowId !== undefined && flowId.length <= FLOW_ID_MAX_LENGTH ? flowId : undefined;

const shortText = (value: string | undefined): string | undefined =>
  truncate(value, HotDetailLimits.textLength);

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
    deviceId: shortText(asString(deviceInfo.identifier)),
    hostname: shortText(asString(networkInfo?.hostname)),
    ipAddress: shortText(asString(networkInfo?.ipAddress)),
    operatingSystem: shortText(asString(systemInfo?.operatingSystem)),
    machineArch: shortText(asString(systemInfo?.machineArch)),
    vCores: asCount(systemInfo?.vCores),
    physicalMemory: asCount(systemInfo?.physicalMem),
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
    backPressuredQueues:
      flowInfo?.queues === undefined
        ? undefined
        : queues.filter((queue) => backPressureOf(queueLevelsOf(queue)) === true).length,
  });
}

const sum = (values: (number | undefined)[]): number =>
  values.reduce<number>((total, value) => total + (value ?? 0), 0);

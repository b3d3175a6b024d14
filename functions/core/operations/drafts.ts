/**
 * What the console asks of operations, turned into drafts: which kind a request names and whether it may,
 * the args Beacon builds or takes from the caller, and the SYNC RESOURCE an UPDATE CONFIGURATION must wait
 * for. Plain values in and out: console-operations.ts reads what these need and queues what they draft.
 */
import type { AgentRecord } from "../agents/ports.js";
import { syncDigestOf, syncResourceArgs, updateAssetArgs } from "../assets/location.js";
import type { AssetRecord } from "../assets/model.js";
import type { ResourceSet } from "../assets/resource-set.js";
import type { OperationArgs } from "../c2/model.js";
import { debugBundleUrl } from "../c2/routes.js";
import { BeaconError } from "../errors.js";
import type { AgentFilters } from "../fleet/agents.js";
import type { HotAgentState } from "../fleet/ports.js";
import type { FlowVersionRecord } from "../flows/ports.js";
import { dropUndefined } from "../json.js";
import { toIso } from "../paging.js";
import { OperationKinds, type OperationRecord } from "./model.js";
import type { OperationDraft, Refusal } from "./queue.js";

/** Which agents: one by id, or those the agent list would show for these filters within a class. */
export type OperationTarget =
  | { agentId: string; selector?: undefined }
  | {
      agentId?: undefined;
      selector: AgentFilters & { agentClass: string };
    };

export type OperationRequest = OperationTarget & {
  operation: string;
  operand?: string;
  /** Numbers and booleans are sent as the strings agents parse; objects only in C++ UPDATE PROPERTIES' form. */
  args?: Record<string, string | number | boolean | PropertyUpdate>;
  dependsOn?: string[];
  /** UPDATE CONFIGURATION: the flow version to send, of the targets' class unless `flowClass` names another. */
  flowHash?: string;
  flowClass?: string;
  /** UPDATE ASSET: the asset to send. */
  assetId?: string;
  /** Required true for what cannot be undone: START or STOP `c2`, CLEAR REPOSITORIES. */
  confirm?: boolean;
  /** For agents whose class's maintenance windows are closed: held until they open (`wait`), or not created. */
  outsideWindow?: OutsideWindow;
};

export type OutsideWindow = "wait" | "refuse";

/** MiNiFi C++ UPDATE PROPERTIES' object form of a value: whether the agent writes it to its properties file. */
export interface PropertyUpdate {
  value: string;
  persist?: boolean;
}

/** An operation as Beacon sends it, upper-case, without an operand where it takes none. */
export interface OperationKind {
  operation: string;
  operand?: string;
}

/** Operations whose args Beacon builds from a flow version, an asset or a resource set, not from the caller. */
export const UPDATE_CONFIGURATION = "UPDATE CONFIGURATION";
export const UPDATE_ASSET = "UPDATE ASSET";
export const SYNC_RESOURCE = "SYNC RESOURCE";
export const TRANSFER_DEBUG = "TRANSFER DEBUG";
/** UPDATE ASSET takes one arg from the caller, as the string agents parse. */
const FORCE_DOWNLOAD = "forceDownload";

/** The args a caller gives an operation: whether it needs some, and the names it takes when they are fixed. */
const CALLER_ARGS: Record<string, { required: boolean; names?: readonly string[] }> = {
  "UPDATE PROPERTIES": { required: true },
  "CLEAR CONNECTION": { required: true },
  "CLEAR CORECOMPONENTSTATE": { required: true },
  "START PROCESSOR": { required: true, names: ["processorId"] },
  "STOP PROCESSOR": { required: true, names: ["processorId"] },
  [UPDATE_ASSET]: { required: false, names: [FORCE_DOWNLOAD] },
  "DESCRIBE METRICS": { required: false, names: ["metricsClass"] },
};

/**
 * What cannot be undone, sent only with `"confirm": true`: STOP `c2` ends the C++ agent (SIGTERM) and START
 * `c2` restarts it, CLEAR REPOSITORIES destroys the data the agent holds queued.
 */
const NEEDS_CONFIRMATION = new Set(["START C2", "STOP C2", "CLEAR REPOSITORIES"]);

/** A C++ component START or STOP names as its operand: its id or name, `FlowController`, `c2`. */
const COMPONENT_OPERAND = /^[A-Za-z0-9][A-Za-z0-9 ._:-]{0,127}$/;

export const operationView = (record: OperationRecord) =>
  dropUndefined({
    operationId: record.operationId,
    agentId: record.agentId,
    operation: record.operation,
    operand: record.operand,
    args: record.args,
    dependsOn: record.dependsOn,
    state: record.state,
    createdAt: toIso(record.createdAt) as string,
    createdBy: record.createdBy,
    deliveredAt: toIso(record.deliveredAt),
    timeoutAt: toIso(record.timeoutAt),
    finishedAt: toIso(record.finishedAt),
    ackState: record.ackState,
    confirmedBy: record.confirmedBy,
    details: record.details,
    failureCause: record.failureCause,
    reason: record.reason,
    notBefore: toIso(record.notBefore),
    result: record.result && {
      bytes: record.result.bytes,
      expiresAt: toIso(record.result.expiresAt) as string,
    },
    resultLost: record.resultLost,
    bundle: record.bundle && {
      bytes: record.bundle.bytes,
      expiresAt: toIso(record.bundle.expiresAt) as string,
    },
  });

export const nameOf = (kind: OperationKind) => `${kind.operation} ${kind.operand ?? ""}`.trim();

/**
 * The caller's args as agents take them: strings (`"30"`, not `30`: MiNiFi Java reads anything else as
 * absent), and UPDATE PROPERTIES' object form `{value, persist}` as it is (gating.ts sends it to C++ only).
 */
function callerArgsOf(name: string, args: OperationRequest["args"]): OperationArgs | undefined {
  if (args === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(args).map(([arg, value]) => {
      if (typeof value !== "object") return [arg, String(value)];
      if (name !== "UPDATE PROPERTIES")
        throw new BeaconError("invalid_request", `${name} takes strings as args, not objects (${arg})`);
      return [arg, dropUndefined({ value: value.value, persist: value.persist })];
    }),
  );
}

/** The operation as Beacon sends it: a kind it creates, with the arguments that kind takes. */
export function kindOf(request: OperationRequest): OperationKind {
  const operation = request.operation.toUpperCase();
  const operand = request.operand?.toUpperCase() ?? "";
  const known = OperationKinds.some((entry) => entry.operation === operation && entry.operand === operand);
  const component = (operation === "START" || operation === "STOP") && COMPONENT_OPERAND.test(operand);
  if (!known && !component)
    throw new BeaconError("invalid_request", `Beacon does not create ${operation} ${operand}`.trim());
  const name = nameOf({ operation, operand });
  if (NEEDS_CONFIRMATION.has(name) && request.confirm !== true)
    throw new BeaconError(
      "confirmation_required",
      `${name} cannot be undone (${name === "CLEAR REPOSITORIES" ? "it destroys the data the agent holds queued" : "it ends or restarts the agent itself"}): send it with "confirm": true`,
    );
  const argNames = Object.keys(request.args ?? {});
  const takes = CALLER_ARGS[name];
  if (takes?.required && argNames.length === 0)
    throw new BeaconError("invalid_request", `${name} needs args`);
  if (!takes && request.args !== undefined) throw new BeaconError("invalid_request", `${name} takes no args`);
  // A property or component named by spaces only is none an agent has.
  const blank = argNames.find((arg) => arg.trim() === "");
  if (blank !== undefined)
    throw new BeaconError(
      "invalid_request",
      `${name} takes named args: ${JSON.stringify(blank)} names nothing`,
    );
  if (takes?.names && argNames.some((arg) => !takes.names?.includes(arg)))
    throw new BeaconError("invalid_request", `${name} takes only the args ${takes.names.join(", ")}`);
  if (name === UPDATE_ASSET) {
    const force = callerArgsOf(name, request.args)?.[FORCE_DOWNLOAD];
    if (force !== undefined && force !== "true" && force !== "false")
      throw new BeaconError("invalid_request", `${FORCE_DOWNLOAD} is "true" or "false"`);
  }
  if (name === UPDATE_CONFIGURATION && request.flowHash === undefined)
    throw new BeaconError("invalid_request", `${name} needs a flowHash`);
  if (name !== UPDATE_CONFIGURATION && (request.flowHash !== undefined || request.flowClass !== undefined))
    throw new BeaconError("invalid_request", `${name} takes no flow`);
  if (name === UPDATE_ASSET && request.assetId === undefined)
    throw new BeaconError("invalid_request", `${name} needs an assetId`);
  if (name !== UPDATE_ASSET && request.assetId !== undefined)
    throw new BeaconError("invalid_request", `${name} takes no asset`);
  return { operation, operand: operand || undefined };
}

/** The 409 for drafts their agents cannot take, naming each agent with the reason. */
export function refusedError(refused: Refusal[]): BeaconError {
  const shown = refused
    .slice(0, 10)
    .map(({ draft, reason }) => `${draft.agent.agentId} (${nameOf(draft)}: ${reason})`)
    .join("; ");
  const more = refused.length > 10 ? `; and ${refused.length - 10} more` : "";
  const who =
    refused.length === 1 ? "The agent cannot take the operation" : `${refused.length} agents cannot`;
  return new BeaconError("operation_not_supported", `${who}: ${shown}${more}`);
}

/** An agent's maintenance windows that are not all open now: whose, and when they next are (never: none). */
export interface ClosedWindows {
  of: string[];
  nextOpening?: number;
}

/**
 * The drafts for agents whose maintenance windows are closed (`closed`, by agent id): held until they open,
 * or refused, each with why, as the request chose; refused when they never open together. The others go.
 */
export function outsideWindows(
  drafted: OperationDraft[],
  closed: ReadonlyMap<string, ClosedWindows>,
  choice: OutsideWindow,
): { drafts: OperationDraft[]; refused: Refusal[] } {
  const refused: Refusal[] = [];
  const drafts: OperationDraft[] = [];
  for (const draft of drafted) {
    const windows = closed.get(draft.agent.agentId);
    const opening = windows?.nextOpening;
    if (windows === undefined) drafts.push(draft);
    else if (choice === "wait" && opening !== undefined) drafts.push({ ...draft, notBefore: opening });
    else refused.push({ draft, reason: closedWindowsReason(windows) });
  }
  return { drafts, refused };
}

/** Why an agent is not reached now: its windows are closed until their next opening, or never open together. */
export const closedWindowsReason = ({ of, nextOpening }: ClosedWindows): string =>
  `the maintenance windows of ${of.join(" and ")} ${
    nextOpening === undefined ? "are never open together" : `are closed until ${toIso(nextOpening)}`
  }`;

/** The 409 for agents outside their class's maintenance windows when the request chose to refuse those. */
export function outsideWindowError(refused: Refusal[]): BeaconError {
  const first = refused[0] as Refusal;
  const agents = new Set(refused.map(({ draft }) => draft.agent.agentId)).size;
  return new BeaconError(
    "outside_window",
    `${agents === 1 ? "The agent is" : `${agents} agents are`} outside the maintenance windows: ${first.reason}; send it with "outsideWindow": "wait" to hold it until they open`,
  );
}

/** The classes whose flow version an UPDATE CONFIGURATION sends: the one it names, else its agents'. */
export const flowClassesOf = (request: OperationRequest, agents: AgentRecord[]): string[] =>
  request.flowClass
    ? [request.flowClass]
    : [...new Set(agents.map((agent) => request.selector?.agentClass ?? agent.agentClass))];

/** What is known of each agent's class and resources when its drafts are made. */
export interface AgentsRead {
  agents: AgentRecord[];
  hot: Map<string, HotAgentState>;
  /** The resource set of each agent's class, where the kind needs it. */
  resourceSets: Map<string, ResourceSet | undefined>;
}

/** Where agents are sent, and how each new operation's id is made. */
export interface DraftContext {
  /** The agent API's public base URL (`https://host[:port]`), for the URLs agents are sent to. */
  agentApiUrl: string;
  /** The base of TRANSFER DEBUG's upload targets: where the streaming bundle intake is reached. */
  debugBundleTargetBase: string;
  newOperationId(agentId: string): string;
}

/**
 * The agents whose UPDATE CONFIGURATION of a flow naming these assets (`@{asset-id:…}`) must wait for a
 * SYNC RESOURCE: those that do not report their class's set's digest. The set must hold every asset the
 * flow names, or the flow would fail to apply.
 */
export function agentsLackingAssets(read: AgentsRead, assetIds: string[]): AgentRecord[] {
  return read.agents.filter((agent) => {
    const set = read.resourceSets.get(agent.agentClass);
    const held = new Set(set?.entries.map((entry) => entry.assetId));
    const missing = assetIds.filter((assetId) => !held.has(assetId));
    if (!set || missing.length > 0)
      throw new BeaconError(
        "flow_incompatible",
        `The flow uses assets the resource set of class ${agent.agentClass} does not hold (${missing.join(", ")}); add them with PUT /classes/{name}/resources`,
      );
    return read.hot.get(agent.agentId)?.resourceHash !== set.digest;
  });
}

/** A queued or delivered SYNC RESOURCE of the agent that brings it to this set, when there is one. */
export const openSyncTo = (open: OperationRecord[], set: ResourceSet) =>
  open.find(
    (record) =>
      record.operation === "SYNC" &&
      record.operand === "RESOURCE" &&
      (record.state === "queued" || record.state === "delivered") &&
      syncDigestOf(record.args) === set.digest,
  );

/** The operation an agent's UPDATE CONFIGURATION waits for, and the SYNC RESOURCE to queue with it if new. */
export interface AssetPrerequisite {
  dependsOn: string;
  sync?: OperationDraft;
}

/**
 * Each lacking agent's UPDATE CONFIGURATION depends on the SYNC RESOURCE that brings it its class's set: one
 * already queued or delivered (`open`, the agent's open operations), else one queued with it.
 */
export function assetPrerequisites(
  lacking: AgentRecord[],
  read: AgentsRead,
  open: Map<string, OperationRecord[]>,
  context: DraftContext,
): Map<string, AssetPrerequisite> {
  const prerequisites = new Map<string, AssetPrerequisite>();
  for (const agent of lacking) {
    const set = read.resourceSets.get(agent.agentClass) as ResourceSet;
    const pending = openSyncTo(open.get(agent.agentId) ?? [], set);
    if (pending) {
      prerequisites.set(agent.agentId, { dependsOn: pending.operationId });
      continue;
    }
    const operationId = context.newOperationId(agent.agentId);
    const sync: OperationDraft = {
      agent,
      operation: "SYNC",
      operand: "RESOURCE",
      args: syncResourceArgs(set, context.agentApiUrl),
      operationId,
    };
    prerequisites.set(agent.agentId, { dependsOn: operationId, sync });
  }
  return prerequisites;
}

/** UPDATE CONFIGURATION's drafts: the version's download, after the assets it names where it names any. */
export function updateConfigurationDrafts(
  request: OperationRequest,
  agents: AgentRecord[],
  flowArgsOf: (agent: AgentRecord) => OperationArgs,
  prerequisites: Map<string, AssetPrerequisite>,
): OperationDraft[] {
  return agents.flatMap((agent) => {
    const prerequisite = prerequisites.get(agent.agentId);
    const dependsOn = [...(request.dependsOn ?? []), ...(prerequisite ? [prerequisite.dependsOn] : [])];
    const update: OperationDraft = {
      agent,
      operation: "UPDATE",
      operand: "CONFIGURATION",
      args: flowArgsOf(agent),
      dependsOn: dependsOn.length > 0 ? dependsOn : undefined,
    };
    return prerequisite?.sync ? [prerequisite.sync, update] : [update];
  });
}

/** Refuses a SYNC RESOURCE to an agent whose class has no resource set to sync it to. */
function assertResourceSets(read: AgentsRead): void {
  for (const agent of read.agents)
    if (!read.resourceSets.get(agent.agentClass))
      throw new BeaconError(
        "not_found",
        `Class ${agent.agentClass} has no resource set; set one with PUT /classes/{name}/resources`,
      );
}

/**
 * One draft per agent for every kind but UPDATE CONFIGURATION: the args Beacon builds for UPDATE ASSET (the
 * asset read), SYNC RESOURCE (each class's set read) and TRANSFER DEBUG (an upload target per operation),
 * or the caller's.
 */
export function drafts(
  request: OperationRequest,
  kind: OperationKind,
  read: AgentsRead & { asset?: AssetRecord },
  context: DraftContext,
): OperationDraft[] {
  const name = nameOf(kind);
  const each = (argsOf: (agent: AgentRecord) => OperationArgs | undefined) =>
    read.agents.map((agent) => ({ agent, ...kind, args: argsOf(agent), dependsOn: request.dependsOn }));
  if (name === UPDATE_ASSET) {
    if (!read.asset) throw new BeaconError("not_found", "No such asset");
    const force = callerArgsOf(name, request.args)?.[FORCE_DOWNLOAD] === "true";
    const args = updateAssetArgs(read.asset, context.agentApiUrl, force);
    return each(() => args);
  }
  if (name === SYNC_RESOURCE) {
    assertResourceSets(read);
    return each((agent) =>
      syncResourceArgs(read.resourceSets.get(agent.agentClass) as ResourceSet, context.agentApiUrl),
    );
  }
  if (name === TRANSFER_DEBUG)
    // Each upload target names its own operation, whose id is made here for it.
    return read.agents.map((agent) => {
      const operationId = context.newOperationId(agent.agentId);
      const target = debugBundleUrl(context.debugBundleTargetBase, operationId);
      return { agent, ...kind, operationId, args: { target }, dependsOn: request.dependsOn };
    });
  const args = callerArgsOf(name, request.args);
  return each(() => args);
}

/** A flow version's assets, over the classes an UPDATE CONFIGURATION sends it to. */
export const assetIdsOf = (versions: FlowVersionRecord[]): string[] => [
  ...new Set(versions.flatMap((version) => version.assetIds ?? [])),
];

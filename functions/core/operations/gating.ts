/**
 * Whether an agent can be sent an operation. Its manifest's `supportedOperations` is necessary, not
 * sufficient: some operations need an agent type and version as well, because a Java agent drops a whole
 * heartbeat reply it cannot parse, and some args are refused by some versions. Each rule says why, which
 * is what a refusal (409) tells the caller. Plain values in and out.
 */
import { type SupportedOperations, supports } from "../c2/manifest.js";
import type { OperationArgs } from "../c2/model.js";
import { isDescribeManifest } from "../c2/operations.js";

/** What Beacon knows of the agent's build, from its manifest. */
export interface AgentBuild {
  /** `minifi-java` or `cpp`, as the manifest says. */
  agentType?: string;
  version?: string;
  supportedOperations: SupportedOperations;
}

/** An operation as it would go to the agent. */
export interface GatedOperation {
  operation: string;
  operand?: string;
  args?: OperationArgs;
}

/** A rule for one agent type: the versions it holds for, and the args it looks at, if any. */
interface VersionGate {
  /** The operations it applies to, by name (`START PROCESSOR`). */
  names: readonly string[];
  agentType: string;
  /** Refused below this version (and when the version is unknown). */
  below?: string;
  /** Refused from this version on, when `applies` says so of the args. */
  from?: string;
  applies?: (args: OperationArgs | undefined) => boolean;
  why: string;
}

const JAVA = "minifi-java";
const CPP = "cpp";

const fileWithDot = (args: OperationArgs | undefined) =>
  typeof args?.file === "string" && args.file.includes(".");

/**
 * Operations only the C++ agent has: MiNiFi Java's enum has no such operand, and a Java agent drops the
 * whole heartbeat reply over it, so they go to no other agent type, nor to one of unknown type, whatever
 * its manifest lists.
 */
const CPP_ONLY = new Set([
  "DESCRIBE METRICS",
  "DESCRIBE CONFIGURATION",
  "DESCRIBE JSTACK",
  "DESCRIBE CORECOMPONENTSTATE",
  "CLEAR CORECOMPONENTSTATE",
  "CLEAR REPOSITORIES",
]);

/** START and STOP of the flow or a processor by `processorId` exist in both agents; of anything else, only in C++. */
const SHARED_START_STOP_OPERANDS = new Set(["FLOW", "PROCESSOR"]);

function cppOnly(operation: GatedOperation): boolean {
  const operand = operation.operand ?? "";
  if (operation.operation === "START" || operation.operation === "STOP")
    return !SHARED_START_STOP_OPERANDS.has(operand);
  return CPP_ONLY.has(`${operation.operation} ${operand}`);
}

/** UPDATE PROPERTIES in the object form only MiNiFi C++ reads: `{name: {value, persist}}`. */
const propertiesAsObjects = (operation: GatedOperation) =>
  operation.operation === "UPDATE" &&
  operation.operand === "PROPERTIES" &&
  Object.values(operation.args ?? {}).some((value) => typeof value === "object");

/**
 * The version rules (REAL-AGENTS.md, §2), by operation. TRANSFER DEBUG needs none: every MiNiFi Java 2.x and
 * MiNiFi C++ that lists it posts the bundle alike, as the form part `file`, to the absolute `target` Beacon sends.
 */
const VERSION_GATES: readonly VersionGate[] = [
  {
    names: ["SYNC RESOURCE"],
    agentType: JAVA,
    below: "2.0.0",
    why: "MiNiFi Java reads SYNC RESOURCE's object args from 2.0 on, and an older one drops the whole reply",
  },
  {
    names: ["UPDATE ASSET"],
    agentType: JAVA,
    from: "2.11.0",
    applies: fileWithDot,
    why:
      "MiNiFi Java 2.11 and later refuse an UPDATE ASSET file name with a dot (NO_OPERATION); send the " +
      "asset in the class's resource set (SYNC RESOURCE) instead",
  },
  {
    names: ["START PROCESSOR", "STOP PROCESSOR"],
    agentType: JAVA,
    below: "2.7.0",
    why: "MiNiFi Java starts and stops a processor from 2.7 on, and an older one drops the whole reply",
  },
];

/** The numeric parts of a version ("2.11.0-SNAPSHOT" → [2, 11, 0]); undefined when it has none. */
function versionParts(version: string | undefined): number[] | undefined {
  const match = /^\d+(\.\d+)*/.exec(version?.trim() ?? "");
  return match ? match[0].split(".").map(Number) : undefined;
}

function compareVersions(a: number[], b: number[]): number {
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** Why the agent must not be sent the operation; undefined when it may. */
export function refusalOf(build: AgentBuild | undefined, operation: GatedOperation): string | undefined {
  if (isDescribeManifest(operation)) return undefined;
  const name = `${operation.operation} ${operation.operand ?? ""}`.trim();
  if (!build) return `Beacon does not know its manifest yet, so not whether it takes ${name}`;
  if (!supports(build.supportedOperations, operation.operation, operation.operand))
    return `its manifest does not list ${name}`;
  const runs = `it runs ${build.agentType ?? "an agent of unknown type"} ${build.version ?? "of unknown version"}`;
  if (cppOnly(operation) && build.agentType !== CPP)
    return `only MiNiFi C++ takes ${name}: MiNiFi Java drops the whole heartbeat reply over it (${runs})`;
  if (propertiesAsObjects(operation) && build.agentType !== CPP)
    return `only MiNiFi C++ takes UPDATE PROPERTIES values as objects ({value, persist}); MiNiFi Java reads them as absent: send strings (${runs})`;
  const version = versionParts(build.version);
  for (const gate of VERSION_GATES) {
    if (!gate.names.includes(name) || gate.agentType !== build.agentType) continue;
    const tooOld =
      gate.below !== undefined && (!version || compareVersions(version, versionParts(gate.below) ?? []) < 0);
    const refusedFrom =
      gate.from !== undefined &&
      version !== undefined &&
      compareVersions(version, versionParts(gate.from) ?? []) >= 0 &&
      (gate.applies?.(operation.args) ?? true);
    if (tooOld || refusedFrom) return `${gate.why} (${runs})`;
  }
  return undefined;
}

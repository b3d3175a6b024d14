import { BeaconError } from "../errors.js";
import type { FlowParameter, ParameterReference } from "../flows/parameters.js";
import { type ClassAgent, parameterValuesRefused, type RefusedParameterValue } from "../flows/validation.js";
import type { AllowedPropertyValues } from "../manifests/catalog.js";
import { effectiveParameters } from "./effective.js";
import type { ParameterLayer, ParameterRecord } from "./model.js";

type Values = readonly Pick<ParameterRecord, "name" | "value">[];

/** Agent ids a readiness report lists per problem; its count covers them all. */
const MAX_LISTED_AGENTS = 20;
/** Problems a refusal's message names; the report lists them all. */
const PROBLEMS_IN_MESSAGE = 3;

/** What a flow version's parameters meet at a class: its values, its agents and theirs, their binaries. */
export interface ReadinessInput {
  /** The version's declared parameters. */
  declared: readonly FlowParameter[];
  /** Where the version's processors and services reference them. */
  references: readonly ParameterReference[];
  /** The class's values. */
  classValues: Values;
  /** The class's agents, each with its binary when Beacon holds the manifest of the hash it reports. */
  agents: readonly ClassAgent[];
  /** The agents' own values, by agent id; an agent holding none may be left out. */
  agentValues: ReadonlyMap<string, Values>;
  /** The values each binary's processors allow, by property and processor type, by manifestId. */
  allowedValues: ReadonlyMap<string, Map<string, AllowedPropertyValues>>;
}

/** A declared parameter a layer leaves without a value, and the agents that then get none from any. */
export interface MissingParameterValue {
  parameter: string;
  /** The lowest layer a value would reach the agents from: the class's (groups' when they exist). */
  layer: Exclude<ParameterLayer, "flow" | "agent">;
  agentCount: number;
  agentIds: string[];
}

/** A value the agents' binaries refuse, the layer it comes from and the agents that would get it. */
export interface RefusedAgentValue extends RefusedParameterValue {
  layer: ParameterLayer;
  agentCount: number;
  agentIds: string[];
}

/** Whether every agent's rendered flow would have a value for each declared parameter that its binary takes. */
export interface ParameterReadiness {
  ready: boolean;
  /** The agents checked. */
  agentCount: number;
  missing: MissingParameterValue[];
  refused: RefusedAgentValue[];
}

/** One agent's problem with the version: a parameter it gets no value for, or a value its binary refuses. */
type Problem =
  | { kind: "missing"; parameter: string }
  | { kind: "refused"; refused: RefusedParameterValue; layer: ParameterLayer };

/** Agents that get the same values on the same binary, and so have the same problems. */
interface Profile {
  manifestId?: string;
  own: Values;
  agentIds: string[];
}

const NO_VALUES: Values = [];

/**
 * The agents grouped by what decides their problems: those without values of their own by binary alone (most
 * of a class, checked once per binary), each agent with values of its own apart.
 */
function profilesOf(input: ReadinessInput): Profile[] {
  const profiles = new Map<string, Profile>();
  for (const { agentId, manifestId } of input.agents) {
    const own = input.agentValues.get(agentId) ?? NO_VALUES;
    const key = JSON.stringify([manifestId ?? null, own.length > 0 ? agentId : null]);
    const profile = profiles.get(key) ?? { manifestId, own, agentIds: [] };
    profile.agentIds.push(agentId);
    profiles.set(key, profile);
  }
  return [...profiles.values()];
}

/**
 * What an agent's rendered flow would lack: each declared parameter left without a value (as its download
 * would answer parameter_value_missing), and each processor value its binary's descriptors refuse. Secret
 * references are not read, so only plain values are checked; a binary Beacon does not hold refuses nothing.
 */
function problemsOf(input: ReadinessInput, profile: Profile): Problem[] {
  const effective = effectiveParameters(input.declared, { class: input.classValues, agent: profile.own });
  const problems: Problem[] = [];
  const plain = new Map<string, string>();
  const layers = new Map<string, ParameterLayer>();
  for (const { name, declared, value, layer } of effective) {
    if (!declared) continue;
    if (!value) problems.push({ kind: "missing", parameter: name });
    else if ("value" in value) plain.set(name, value.value);
    if (layer) layers.set(name, layer);
  }
  const allowed = profile.manifestId === undefined ? undefined : input.allowedValues.get(profile.manifestId);
  if (allowed)
    for (const refused of parameterValuesRefused([...input.references], allowed, (name) => plain.get(name)))
      problems.push({ kind: "refused", refused, layer: layers.get(refused.parameter) ?? "flow" });
  return problems;
}

const problemKey = (problem: Problem): string =>
  problem.kind === "missing"
    ? JSON.stringify(["missing", problem.parameter])
    : JSON.stringify(["refused", problem.layer, problem.refused]);

/** Each agent's problems, by problem: which agents have it. */
function agentsByProblem(input: ReadinessInput): Map<string, { problem: Problem; agentIds: Set<string> }> {
  const byProblem = new Map<string, { problem: Problem; agentIds: Set<string> }>();
  for (const profile of profilesOf(input)) {
    for (const problem of problemsOf(input, profile)) {
      const key = problemKey(problem);
      const entry = byProblem.get(key) ?? { problem, agentIds: new Set<string>() };
      for (const agentId of profile.agentIds) entry.agentIds.add(agentId);
      byProblem.set(key, entry);
    }
  }
  return byProblem;
}

function reportOf(
  agentCount: number,
  byProblem: Iterable<{ problem: Problem; agentIds: ReadonlySet<string> }>,
): ParameterReadiness {
  const missing: MissingParameterValue[] = [];
  const refused: RefusedAgentValue[] = [];
  for (const { problem, agentIds } of byProblem) {
    if (agentIds.size === 0) continue;
    const agents = {
      agentCount: agentIds.size,
      agentIds: [...agentIds].sort().slice(0, MAX_LISTED_AGENTS),
    };
    if (problem.kind === "missing") missing.push({ parameter: problem.parameter, layer: "class", ...agents });
    else refused.push({ ...problem.refused, layer: problem.layer, ...agents });
  }
  missing.sort((a, b) => (a.parameter < b.parameter ? -1 : 1));
  return { ready: missing.length === 0 && refused.length === 0, agentCount, missing, refused };
}

/** Whether the class's agents would each get a value they can run for every parameter the version declares. */
export function parameterReadiness(input: ReadinessInput): ParameterReadiness {
  return reportOf(input.agents.length, agentsByProblem(input).values());
}

/**
 * What a change of values would break: the problems agents would have after it that they do not have now. A
 * change is not held to what is broken already, so that problems can be mended one value at a time.
 */
export function readinessAfterChange(before: ReadinessInput, after: ReadinessInput): ParameterReadiness {
  const now = agentsByProblem(before);
  const introduced = [...agentsByProblem(after)].map(([key, { problem, agentIds }]) => {
    const already = now.get(key)?.agentIds;
    return { problem, agentIds: new Set([...agentIds].filter((agentId) => !already?.has(agentId))) };
  });
  return reportOf(after.agents.length, introduced);
}

const agentsText = (count: number) => (count === 1 ? "1 agent" : `${count} agents`);

function problemsText(report: ParameterReadiness): string {
  const named = [
    ...report.missing.map(
      ({ parameter, agentCount }) =>
        `the class layer leaves ${parameter} unset: the ${agentsText(agentCount)} without a value of their own lack it`,
    ),
    ...report.refused.map(
      ({ parameter, processorType, property, value, layer, agentCount }) =>
        `${processorType}'s ${property} refuses "${value}" (${parameter} from the ${layer} layer) for ${agentsText(agentCount)}`,
    ),
  ];
  const more = named.length > PROBLEMS_IN_MESSAGE ? ` and ${named.length - PROBLEMS_IN_MESSAGE} more` : "";
  return named.slice(0, PROBLEMS_IN_MESSAGE).join("; ") + more;
}

/**
 * Refuses what would send agents a flow they cannot run (`what`: the request, as the message names it), with
 * the report in the error's details and the version it concerns; nothing is written or sent.
 */
export function refuseUnready(
  what: string,
  version: { className: string; flowHash: string; truncated: boolean },
  report: ParameterReadiness,
): void {
  if (report.ready) return;
  const { ready: _ready, ...details } = report;
  throw new BeaconError(
    "parameters_not_ready",
    `${what} would leave agents of class ${version.className} with a flow they cannot run (version ${version.flowHash.slice(0, 12)}): ${problemsText(report)}`,
    { ...version, ...details },
  );
}

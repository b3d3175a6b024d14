import type { AgentClassRecord, AgentRegistry, ClassCatalog } from "../agents/ports.js";
import { isFlowHash } from "../flows/flow-hash.js";
import type { FlowCatalog, FlowVersionRecord } from "../flows/ports.js";
import {
  type ClassAgent,
  MAX_VALIDATED_AGENTS,
  manifestOfferReader,
  parametersInContent,
} from "../flows/validation.js";
import { manifestIdOf } from "../manifests/agent-manifest.js";
import type { ManifestCatalog } from "../manifests/ports.js";
import type { ParameterRecord, ParameterValue } from "./model.js";
import {
  type GroupMembersOf,
  type GroupMemberValues,
  type GroupValues,
  type ValueOverClass,
  type ValuesOverClassOf,
  valuesOverClass,
} from "./over-class.js";
import type { ParameterScope, ParameterStore } from "./ports.js";
import { parameterReadiness, type ReadinessInput, readinessAfterChange, refuseUnready } from "./readiness.js";
import { ownValuesOf } from "./rendered-flow-ids.js";

export interface ReadinessCheckDependencies {
  flows: Pick<FlowCatalog, "get" | "read">;
  parameters: Pick<ParameterStore, "list" | "agentValuesOf">;
  manifests: Pick<ManifestCatalog, "read">;
  catalog: Pick<ClassCatalog, "get">;
  registry: Pick<AgentRegistry, "get">;
  /** The class's agents as the agent list shows them, reading on until `limit` or the end. */
  classAgents(tenant: string, className: string, limit: number): Promise<ClassAgent[]>;
  /** An agent's values over its class: its groups' and its own. */
  valuesOverClass: ValuesOverClassOf;
  /** The group layers of these agents' values over their classes, by agent id; those in no holding group left out. */
  groupLayers(
    tenant: string,
    agentIds: readonly string[],
  ): Promise<ReadonlyMap<string, readonly GroupValues[]>>;
  /** A group's first members, each with its class and its values over it laid with the group's values given. */
  groupMembers: GroupMembersOf;
  /** The version the class's rollout under way brings its agents to; a first rollout sets no flow policy. */
  rollingOut(tenant: string, classRecord: AgentClassRecord): Promise<string | undefined>;
}

/** A flow version as the check reads it: stored, or being published. */
type CheckedVersion = Pick<FlowVersionRecord, "className" | "hash" | "parameters">;

type Values = Pick<ParameterRecord, "name" | "value">[];

const withValue = (values: Values, name: string, value: ParameterValue | undefined): Values => [
  ...values.filter((record) => record.name !== name),
  ...(value === undefined ? [] : [{ name, value }]),
];

/** Values over a class as readiness reads them: each name's value, the agent's own over its groups'. */
const byNameOf = (over: readonly ValueOverClass[]): Values =>
  [...ownValuesOf(over)].map(([name, value]) => ({ name, value }));

/** Values over a class with the agent's own value of a parameter set (`value`) or removed; its groups' stay. */
const withOwnValue = (
  over: readonly ValueOverClass[],
  name: string,
  value: ParameterValue | undefined,
): ValueOverClass[] => [
  ...over.filter((entry) => entry.layer !== "agent" || entry.name !== name),
  ...(value === undefined ? [] : [{ name, value, layer: "agent" as const }]),
];

/**
 * Reads what parameter readiness (readiness.ts) decides on, before a version is published or rolled out and
 * before a value changes: the class's values, its agents (the first MAX_VALIDATED_AGENTS, as flow validation
 * reads them; the report says when there were more), the values of their own that those holding any have
 * (one index query per declared parameter, not one per agent), their groups' (one query of the groups, and
 * one read of the agents' registry entries when some group holds values) and each binary's manifest once.
 */
export function makeReadinessCheck(deps: ReadinessCheckDependencies) {
  const { flows, parameters, manifests } = deps;

  async function referencesOf(tenant: string, version: CheckedVersion, content?: Uint8Array) {
    const bytes = content ?? (await flows.read(tenant, version.hash))?.bytes;
    return bytes === undefined ? [] : (await parametersInContent(bytes)).references;
  }

  async function allowedValuesOf(tenant: string, agents: readonly ClassAgent[]) {
    const offerOf = manifestOfferReader(manifests, tenant);
    const manifestIds = [...new Set(agents.flatMap(({ manifestId }) => (manifestId ? [manifestId] : [])))];
    const offers = await Promise.all(manifestIds.map(async (id) => [id, await offerOf(id)] as const));
    return new Map(offers.flatMap(([id, offer]) => (offer ? [[id, offer.allowedValues] as const] : [])));
  }

  /**
   * The values over the class of the agents among `agents` that have any: their groups', and their own of the
   * version's parameters, each name's the agent's own over its groups'.
   */
  async function agentValuesOf(tenant: string, version: CheckedVersion, agents: readonly ClassAgent[]) {
    const inClass = new Set(agents.map(({ agentId }) => agentId));
    const own = new Map<string, Values>();
    const [holding, groupLayers] = await Promise.all([
      Promise.all((version.parameters ?? []).map(({ name }) => parameters.agentValuesOf(tenant, name))),
      deps.groupLayers(tenant, [...inClass]),
    ]);
    for (const { agentId, record } of holding.flat())
      if (inClass.has(agentId)) own.set(agentId, [...(own.get(agentId) ?? []), record]);
    const byAgent = new Map<string, Values>();
    for (const agentId of new Set([...groupLayers.keys(), ...own.keys()]))
      byAgent.set(agentId, byNameOf(valuesOverClass(groupLayers.get(agentId) ?? [], own.get(agentId) ?? [])));
    return byAgent;
  }

  /** What the version meets at its class: the class's values, the given agents with theirs, their binaries. */
  async function inputOf(
    tenant: string,
    version: CheckedVersion,
    agents: ClassAgent[],
    agentValues: Promise<Map<string, Values>>,
    content?: Uint8Array,
  ): Promise<ReadinessInput> {
    const [references, classValues, ownValues, allowedValues] = await Promise.all([
      referencesOf(tenant, version, content),
      parameters.list(tenant, { layer: "class", className: version.className }),
      agentValues,
      allowedValuesOf(tenant, agents),
    ]);
    const declared = version.parameters ?? [];
    return { declared, references, classValues, agents, agentValues: ownValues, allowedValues };
  }

  /** At the class's agents, the first MAX_VALIDATED_AGENTS of them. */
  async function classInput(tenant: string, version: CheckedVersion, content?: Uint8Array) {
    const listed = await deps.classAgents(tenant, version.className, MAX_VALIDATED_AGENTS + 1);
    const agents = listed.slice(0, MAX_VALIDATED_AGENTS);
    const input = await inputOf(tenant, version, agents, agentValuesOf(tenant, version, agents), content);
    return { input, truncated: listed.length > agents.length };
  }

  /** At one agent of the class, with its own values read from its own partition. */
  async function agentInput(tenant: string, version: CheckedVersion, agentId: string) {
    const agent = await deps.registry.get(tenant, agentId);
    const agents = agent ? [{ agentId, manifestId: manifestIdOf(agent) }] : [];
    // The value each name has over the class: the agent's own where it has one, else its groups'.
    const over = await deps.valuesOverClass(tenant, agentId, agent);
    const input = await inputOf(
      tenant,
      version,
      agents,
      Promise.resolve(new Map([[agentId, byNameOf(over)]])),
    );
    return { input, over, truncated: false };
  }

  /** The versions the class's agents run or are being brought to (catch-up, a rollout), those declaring the parameter. */
  async function versionsDeclaring(tenant: string, classRecord: AgentClassRecord | undefined, name: string) {
    if (!classRecord) return [];
    const policy = classRecord.flowPolicy;
    const inForce = [policy?.target, ...(policy?.accepted ?? []), await deps.rollingOut(tenant, classRecord)];
    const hashes = [...new Set(inForce)].filter(
      (hash): hash is string => hash !== undefined && isFlowHash(hash),
    );
    const versions = await Promise.all(hashes.map((hash) => flows.get(tenant, classRecord.name, hash)));
    return versions.filter((version): version is FlowVersionRecord =>
      Boolean(version?.parameters?.some((parameter) => parameter.name === name)),
    );
  }

  /**
   * Refuses to set (`value`) or remove (undefined) a group's value of a parameter when that leaves one of its
   * members (the first MAX_VALIDATED_AGENTS) without a value, or with one its binary refuses, in a version its
   * class runs or is being brought to: each member's values over its class before and after, its other groups'
   * and its own laid as they are.
   */
  async function groupChange(
    what: string,
    tenant: string,
    group: string,
    name: string,
    value: ParameterValue | undefined,
  ): Promise<void> {
    const listed = await deps.groupMembers(tenant, group, MAX_VALIDATED_AGENTS + 1);
    const truncated = listed.length > MAX_VALIDATED_AGENTS;
    const held = await parameters.list(tenant, { layer: "group", group });
    const changed = withValue(held, name, value);
    const byClass = new Map<string, GroupMemberValues[]>();
    for (const member of listed.slice(0, MAX_VALIDATED_AGENTS)) {
      const inClass = byClass.get(member.agentClass) ?? [];
      inClass.push(member);
      byClass.set(member.agentClass, inClass);
    }
    for (const [className, members] of byClass) {
      const agents = members.map(({ agentId, manifestId }) => ({ agentId, manifestId }));
      const valuesWith = (values: Values) =>
        new Map(members.map((member) => [member.agentId, byNameOf(member.overClass(values))]));
      for (const version of await versionsDeclaring(
        tenant,
        await deps.catalog.get(tenant, className),
        name,
      )) {
        const input = await inputOf(tenant, version, agents, Promise.resolve(valuesWith(held)));
        const after = { ...input, agentValues: valuesWith(changed) };
        const context = { className, flowHash: version.hash, truncated };
        refuseUnready(what, context, readinessAfterChange(input, after));
      }
    }
  }

  return {
    /**
     * Refuses to publish or roll out (`what`) a version whose parameters some agent of its class would get no
     * value for, or a value its binary refuses. A version declaring none is not read.
     */
    async version(
      what: string,
      tenant: string,
      version: CheckedVersion,
      content?: Uint8Array,
    ): Promise<void> {
      if (!version.parameters?.length) return;
      const { input, truncated } = await classInput(tenant, version, content);
      const flowHash = version.hash;
      refuseUnready(what, { className: version.className, flowHash, truncated }, parameterReadiness(input));
    },

    /**
     * Refuses to roll out (`what`) class values (`brought`) in place of those in force when they leave an
     * agent of the class without a value of the version's parameters, or with one its binary refuses. What
     * was already so does not refuse them.
     */
    async classValues(
      what: string,
      tenant: string,
      version: CheckedVersion,
      brought: readonly Pick<ParameterRecord, "name" | "value">[],
    ): Promise<void> {
      if (!version.parameters?.length) return;
      const { input, truncated } = await classInput(tenant, version);
      const context = { className: version.className, flowHash: version.hash, truncated };
      refuseUnready(what, context, readinessAfterChange(input, { ...input, classValues: [...brought] }));
    },

    /**
     * Refuses to set (`value`) or remove (undefined) a class's, a group's or an agent's value of a parameter
     * when that leaves an agent without a value, or with one its binary refuses, in a version the class runs or is
     * being brought to. What was already so does not refuse the change.
     */
    async change(
      tenant: string,
      scope: ParameterScope,
      classRecord: AgentClassRecord | undefined,
      name: string,
      value: ParameterValue | undefined,
    ): Promise<void> {
      const what = value === undefined ? `Removing ${name}` : `Setting ${name}`;
      if (scope.layer === "group") return groupChange(what, tenant, scope.group, name, value);
      for (const version of await versionsDeclaring(tenant, classRecord, name)) {
        const context = { className: version.className, flowHash: version.hash };
        if (scope.layer === "class") {
          const { input, truncated } = await classInput(tenant, version);
          const after = { ...input, classValues: withValue([...input.classValues], name, value) };
          refuseUnready(what, { ...context, truncated }, readinessAfterChange(input, after));
        } else {
          const { input, over, truncated } = await agentInput(tenant, version, scope.agentId);
          const changed = byNameOf(withOwnValue(over, name, value));
          const after = { ...input, agentValues: new Map([[scope.agentId, changed]]) };
          refuseUnready(what, { ...context, truncated }, readinessAfterChange(input, after));
        }
      }
    },
  };
}

export type ReadinessCheck = ReturnType<typeof makeReadinessCheck>;

import type {
  AgentClassRecord,
  AgentRecord,
  AgentRegistry,
  ClassCatalog,
  OwnValuesCache,
} from "../agents/ports.js";
import { heartbeatPeriodMsOf } from "../agents/presence.js";
import { BeaconError } from "../errors.js";
import type { FlowParameter } from "../flows/parameters.js";
import { policyInForce } from "../flows/policy.js";
import type { ClassFlowWriter, FlowCatalog } from "../flows/ports.js";
import { guardedCache, tellCacheFirst } from "../guarded-cache.js";
import { type Principal, requireRole } from "../identity/principal.js";
import { asObject, dropUndefined } from "../json.js";
import { toIso } from "../paging.js";
import type { Clock } from "../ports.js";
import type { ConsoleResult } from "../result.js";
import { effectiveParameters } from "./effective.js";
import {
  assertParameterName,
  isParameterName,
  MAX_PARAMETER_VALUE_BYTES,
  MAX_PARAMETERS_PER_LAYER,
  type ParameterRecord,
  type ParameterValue,
  type StagedChange,
} from "./model.js";
import { layersOverClass, type ValueOverClass, type ValuesOverClassOf } from "./over-class.js";
import type { ParameterScope, ParameterStore } from "./ports.js";
import type { ReadinessCheck } from "./readiness-check.js";
import { type OwnValues, ownValuesOf } from "./rendered-flow-ids.js";
import {
  parseSecretReference,
  SECRET_REFERENCE_FORMS,
  TENANT_SECRET_RULE,
  tenantSecretReference,
} from "./secret-refs.js";
import { valuesWithChanges } from "./staging.js";

export interface ParametersDependencies {
  parameters: ParameterStore;
  catalog: ClassCatalog;
  registry: Pick<AgentRegistry, "get">;
  flows: Pick<FlowCatalog, "get">;
  /** Where agents' own values go for catch-up to compare their flow ids with their renderings. */
  hotState: OwnValuesCache;
  /** Where a class's policy goes, rendered anew with its values, for catch-up. */
  classFlowCache: ClassFlowWriter;
  clock: Clock;
  readiness: Pick<ReadinessCheck, "change">;
  /** Renders a pinned agent's pin anew with the own values it is about to have (nothing for an unpinned one). */
  pinFollowsValues(tenant: string, agentId: string, own: OwnValues): Promise<void>;
  /** An agent's values over its class: its groups' and its own. */
  valuesOverClass: ValuesOverClassOf;
  /** The named group as a holder of values; not_found when there is none. */
  groupHolder(tenant: string, name: string): Promise<GroupValueHolder>;
}

/** A group as its values' holder: what groups/ tells parameters/ of it. */
export interface GroupValueHolder {
  /** The one class the group's query names, whose flow's declarations its values meet; absent for any other. */
  className?: string;
  /** Refuses to set a value for a group whose query may not hold values (400, with the reason). */
  assertMayHoldValues(): void;
  /** Marks the group as setting a value for the parameter, or no longer. */
  mark(parameter: string, holds: boolean): Promise<void>;
  /**
   * Once a value of the group is written or removed, and the group marked: agents registering next read the
   * group's values again, not a container's copy of them.
   */
  valuesChanged(): Promise<void>;
  /** Tells every member its values over its class as they are now. */
  tellMembers(): Promise<void>;
}

const invalid = (message: string) => new BeaconError("invalid_request", message);

/**
 * The value a request sets for the tenant: text of bounded size, or a reference in one of the forms
 * secret-refs.ts takes to one of the tenant's own secrets.
 */
export function parameterValueOf(tenant: string, body: unknown): ParameterValue {
  const request = asObject(body) ?? {};
  const { value, secretRef } = request as { value?: unknown; secretRef?: unknown };
  if (Object.keys(request).length !== 1 || (typeof value !== "string" && typeof secretRef !== "string"))
    throw invalid("A parameter's value is an object with either value (text) or secretRef (a reference)");
  if (typeof secretRef === "string") {
    if (!parseSecretReference(secretRef))
      throw invalid(`A secretRef is ${SECRET_REFERENCE_FORMS}; the secret itself is never sent to Beacon`);
    if (!tenantSecretReference(tenant, secretRef))
      throw invalid(`The secretRef names a secret outside the tenant's: ${TENANT_SECRET_RULE}`);
    return { secretRef };
  }
  if (Buffer.byteLength(value as string, "utf8") > MAX_PARAMETER_VALUE_BYTES)
    throw invalid(`A parameter's value is at most ${MAX_PARAMETER_VALUE_BYTES} bytes of UTF-8`);
  return { value: value as string };
}

const valueView = (value: ParameterValue | undefined) =>
  value === undefined ? {} : "secretRef" in value ? { secretRef: value.secretRef } : { value: value.value };

const recordView = (record: ParameterRecord | StagedChange) => ({
  name: record.name,
  ...valueView(record.value),
  updatedAt: toIso(record.updatedAt) as string,
  updatedBy: record.updatedBy,
});

/** A staged change as the API shows it: marked staged, and marked as a removal when it removes the value. */
const stagedView = (change: StagedChange) => ({
  ...recordView(change),
  staged: true,
  ...(change.value === undefined ? { removes: true } : {}),
});

/** Whether the class's value changes are staged for a rollout rather than in force at once. */
const stagesValues = (classRecord: AgentClassRecord | undefined): boolean =>
  classRecord?.valueChanges === "rollout";

/**
 * A layer's holder as a request names it: its scope, the class whose flow declares its parameters, and how
 * heartbeats learn of its values (`tell`), which an agent's must reach before they are written (`tellsFirst`).
 * `stages` names the class whose changes of this layer are staged for a rollout instead.
 */
interface Holder {
  scope: ParameterScope;
  /** A group's: refuses values it may not hold, and marks the names it sets. */
  group?: Pick<GroupValueHolder, "assertMayHoldValues" | "mark" | "valuesChanged">;
  stages?: string;
  classRecord?: AgentClassRecord;
  tell(values: readonly ParameterRecord[]): Promise<void>;
  /** Reads what `tell` needs besides the values, before the cache is called. */
  prepare?(): Promise<void>;
  tellsFirst: boolean;
}

/**
 * Parameter values at the class and agent layers, and the values an agent gets, layer by layer
 * (effective.ts). A class's values are for its agents; an agent's override them for that agent alone.
 */
export function makeParametersApi(deps: ParametersDependencies) {
  const { parameters, catalog, registry, flows, clock } = deps;

  /**
   * A class's values reach heartbeats in its policy's renderings, rendered anew from the values stored: a
   * copy the cache missed expires within minutes (class-flow-cache.ts).
   */
  async function classHolder(tenant: string, className: string): Promise<Holder> {
    const classRecord = await catalog.get(tenant, className);
    if (!classRecord) throw new BeaconError("not_found", "No such class");
    const tell = async () => {
      const policy = classRecord.flowPolicy;
      if (!policy) return;
      await deps.classFlowCache.rememberClassFlow(
        tenant,
        className,
        policyInForce(policy, classRecord.ackTimeoutSeconds),
        heartbeatPeriodMsOf(classRecord),
      );
    };
    return {
      scope: { layer: "class", className },
      stages: stagesValues(classRecord) ? className : undefined,
      classRecord,
      tell,
      tellsFirst: false,
    };
  }

  /**
   * An agent's own values reach heartbeats in its cache entry, which lives as long as the agent heartbeats:
   * a value the cache could not take is not written, so none goes unseen.
   */
  async function agentHolder(
    tenant: string,
    agentId: string,
  ): Promise<Holder & { agentClass: string; record: AgentRecord }> {
    const agent = await registry.get(tenant, agentId);
    if (!agent) throw new BeaconError("not_found", "No such agent");
    /** The values the agent's groups give it, under its own: read before a change of its own is told. */
    let groupLayer: ValueOverClass[] | undefined;
    return {
      scope: { layer: "agent", agentId },
      classRecord: await catalog.get(tenant, agent.agentClass),
      agentClass: agent.agentClass,
      record: agent,
      prepare: async () => {
        groupLayer ??= (await deps.valuesOverClass(tenant, agentId, agent)).filter(
          (value) => value.layer === "group",
        );
      },
      tell: async (values) => {
        const own = ownValuesOf([...(groupLayer ?? []), ...values]);
        await deps.hotState.rememberOwnValues(tenant, agentId, own);
        await deps.pinFollowsValues(tenant, agentId, own);
      },
      tellsFirst: true,
    };
  }

  /**
   * A group's values reach heartbeats in each member's cache entry, as its own do: every member is told
   * once the values are written (a member the cache missed is told at its next registration).
   */
  async function groupHolder(tenant: string, name: string): Promise<Holder> {
    const group = await deps.groupHolder(tenant, name);
    return {
      scope: { layer: "group", group: name },
      classRecord: group.className === undefined ? undefined : await catalog.get(tenant, group.className),
      group,
      tell: () => group.tellMembers(),
      tellsFirst: false,
    };
  }

  /**
   * Writes a change of the holder's values and tells heartbeats of it: an agent's first, with the values it
   * will hold (refused while the cache is unreachable), and every holder's once written, as the store has them.
   */
  async function changing<T>(
    tenant: string,
    holder: Holder,
    values: readonly ParameterRecord[],
    write: () => Promise<T>,
  ): Promise<T> {
    await holder.prepare?.();
    if (holder.tellsFirst)
      await tellCacheFirst(() => holder.tell(values), "the agent would not learn of the value");
    const result = await write();
    await guardedCache().attempt(async () => holder.tell(await parameters.list(tenant, holder.scope)));
    return result;
  }

  /** What the class's target flow version declares, and that version's hash; nothing before one is published. */
  async function declaredBy(
    tenant: string,
    classRecord: AgentClassRecord | undefined,
  ): Promise<{ flowHash?: string; declared?: FlowParameter[] }> {
    const target = classRecord?.flowPolicy?.target;
    if (!classRecord || target === undefined) return {};
    const version = await flows.get(tenant, classRecord.name, target);
    return { flowHash: target, declared: version?.parameters };
  }

  /**
   * The holder's values as they will be: with the changes staged for its class, for a class whose value
   * changes roll out; as they are, for any other.
   */
  async function heldOnceStaged(tenant: string, holder: Holder): Promise<ParameterRecord[]> {
    const held = await parameters.list(tenant, holder.scope);
    return holder.stages === undefined
      ? held
      : valuesWithChanges(held, await parameters.staged(tenant, holder.stages));
  }

  /** Stages the removal of a class's value, one it holds or one a staged change gives it. */
  async function stageRemoval(
    principal: Principal,
    className: string,
    holder: Holder,
    name: string,
  ): Promise<ConsoleResult> {
    const { tenant } = principal;
    const held = isParameterName(name) ? await heldOnceStaged(tenant, holder) : [];
    if (!held.some((record) => record.name === name))
      throw new BeaconError("not_found", "No value is set for the parameter here");
    await deps.readiness.change(tenant, holder.scope, holder.classRecord, name, undefined);
    const change: StagedChange = { name, updatedAt: clock.now(), updatedBy: principal.subject };
    await parameters.stage(tenant, className, change);
    return { status: 202, body: stagedView(change) };
  }

  function layerApi(holderOf: (tenant: string, id: string) => Promise<Holder>) {
    async function find(tenant: string, holder: Holder, name: string) {
      const record = isParameterName(name) ? await parameters.get(tenant, holder.scope, name) : undefined;
      if (!record) throw new BeaconError("not_found", "No value is set for the parameter here");
      return record;
    }

    return {
      async get(principal: Principal, id: string, name: string): Promise<ConsoleResult> {
        requireRole(principal, "viewer");
        const holder = await holderOf(principal.tenant, id);
        return { body: recordView(await find(principal.tenant, holder, name)) };
      },

      /**
       * Sets the value; a parameter the class's flow declares sensitive takes a secret reference only. A
       * layer holds at most MAX_PARAMETERS_PER_LAYER names.
       */
      async put(principal: Principal, id: string, name: string, body: unknown): Promise<ConsoleResult> {
        requireRole(principal, "operator");
        const { tenant } = principal;
        assertParameterName(name);
        const value = parameterValueOf(tenant, body);
        const holder = await holderOf(tenant, id);
        holder.group?.assertMayHoldValues();
        const { declared } = await declaredBy(tenant, holder.classRecord);
        if (declared?.some((parameter) => parameter.name === name && parameter.sensitive) && "value" in value)
          throw invalid(`The flow declares ${name} sensitive: its value is a secretRef, not the secret`);
        const held = await heldOnceStaged(tenant, holder);
        if (held.length >= MAX_PARAMETERS_PER_LAYER && !held.some((record) => record.name === name))
          throw new BeaconError(
            "parameter_limit",
            `A class, a group or an agent holds at most ${MAX_PARAMETERS_PER_LAYER} parameter values: delete one first`,
          );
        await deps.readiness.change(tenant, holder.scope, holder.classRecord, name, value);
        const record: ParameterRecord = { name, value, updatedAt: clock.now(), updatedBy: principal.subject };
        if (holder.stages !== undefined) {
          await parameters.stage(tenant, holder.stages, record);
          return { status: 202, body: stagedView(record) };
        }
        const values = [...held.filter((other) => other.name !== name), record];
        // Marked before the value is written: a mark without its value reads nothing, a value without its mark would be missed.
        await holder.group?.mark(name, true);
        const outcome = await changing(tenant, holder, values, () =>
          parameters.put(tenant, holder.scope, record),
        );
        await holder.group?.valuesChanged();
        return { status: outcome === "created" ? 201 : 200, body: recordView(record) };
      },

      async remove(principal: Principal, id: string, name: string): Promise<ConsoleResult> {
        requireRole(principal, "operator");
        const { tenant } = principal;
        const holder = await holderOf(tenant, id);
        if (holder.stages !== undefined) return stageRemoval(principal, holder.stages, holder, name);
        await find(tenant, holder, name);
        await deps.readiness.change(tenant, holder.scope, holder.classRecord, name, undefined);
        const values = (await parameters.list(tenant, holder.scope)).filter((record) => record.name !== name);
        const removed = await changing(tenant, holder, values, () =>
          parameters.remove(tenant, holder.scope, name),
        );
        if (!removed) throw new BeaconError("not_found", "No value is set for the parameter here");
        await holder.group?.mark(name, false);
        await holder.group?.valuesChanged();
        return { body: recordView(removed) };
      },
    };
  }

  return {
    classValues: {
      ...layerApi(classHolder),
      /** The class's values in force, and beside them the changes staged for a rollout, when any are. */
      async list(principal: Principal, className: string): Promise<ConsoleResult> {
        requireRole(principal, "viewer");
        const { tenant } = principal;
        const { scope } = await classHolder(tenant, className);
        const [values, staged] = await Promise.all([
          parameters.list(tenant, scope),
          parameters.staged(tenant, className),
        ]);
        return {
          body: {
            items: values.map(recordView),
            ...(staged.length > 0 ? { staged: staged.map(stagedView) } : {}),
          },
        };
      },

      /** Discards the changes staged for the class: its values in force stay as they are. */
      async discardStaged(principal: Principal, className: string): Promise<ConsoleResult> {
        requireRole(principal, "operator");
        const { tenant } = principal;
        await classHolder(tenant, className);
        return { body: { items: (await parameters.discardStaged(tenant, className)).map(stagedView) } };
      },
    },
    groupValues: {
      ...layerApi(groupHolder),
      /** The values the group sets for its members. */
      async list(principal: Principal, name: string): Promise<ConsoleResult> {
        requireRole(principal, "viewer");
        const { scope } = await groupHolder(principal.tenant, name);
        return { body: { items: (await parameters.list(principal.tenant, scope)).map(recordView) } };
      },
    },
    agentValues: {
      ...layerApi(agentHolder),
      /**
       * What the agent gets: each parameter its class's target flow declares or a layer sets, with its
       * effective value and the layer it comes from; and the values set for the agent itself.
       */
      async list(principal: Principal, agentId: string): Promise<ConsoleResult> {
        requireRole(principal, "viewer");
        const { tenant } = principal;
        const holder = await agentHolder(tenant, agentId);
        const [{ flowHash, declared }, classValues, agentValues, overClass] = await Promise.all([
          declaredBy(tenant, holder.classRecord),
          parameters.list(tenant, { layer: "class", className: holder.agentClass }),
          parameters.list(tenant, holder.scope),
          deps.valuesOverClass(tenant, agentId, holder.record),
        ]);
        const items = effectiveParameters(declared, {
          class: classValues,
          ...layersOverClass(overClass),
        }).map((parameter) =>
          dropUndefined({
            name: parameter.name,
            declared: parameter.declared !== undefined,
            sensitive: parameter.declared?.sensitive,
            description: parameter.declared?.description,
            layer: parameter.layer,
            group: parameter.group,
            ...valueView(parameter.value),
          }),
        );
        return {
          body: dropUndefined({
            agentId,
            className: holder.agentClass,
            flowHash,
            items,
            agentValues: agentValues.map(recordView),
          }),
        };
      },
    },
  };
}

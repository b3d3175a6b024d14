import type { ParameterRecord, StagedChange } from "./model.js";
import type { SecretReference } from "./secret-refs.js";

/** The values one class, one group or one agent holds: the layers a person sets. */
export type ParameterScope =
  | { layer: "class"; className: string }
  | { layer: "group"; group: string }
  | { layer: "agent"; agentId: string };

/** Parameter values by tenant, scope and name; a scope's values are read together. */
export interface ParameterStore {
  /** The scope's values, by name. */
  list(tenant: string, scope: ParameterScope): Promise<ParameterRecord[]>;
  get(tenant: string, scope: ParameterScope, name: string): Promise<ParameterRecord | undefined>;
  /** Sets the name's value, replacing the one it had; `created` when it had none. */
  put(tenant: string, scope: ParameterScope, record: ParameterRecord): Promise<"created" | "replaced">;
  /** Removes the name's value: the record as it was, or undefined when there was none. */
  remove(tenant: string, scope: ParameterScope, name: string): Promise<ParameterRecord | undefined>;
  /**
   * The agents of the tenant, whatever their class, that hold a value of their own for the name, by agent id,
   * each with it: what a class's values leave to them. Reads an index, which may lag a change by a moment.
   */
  agentValuesOf(tenant: string, name: string): Promise<{ agentId: string; record: ParameterRecord }[]>;
  /** The changes staged for the class, by name, apart from its values in force. */
  staged(tenant: string, className: string): Promise<StagedChange[]>;
  /** Stages the change, replacing one staged for the same name. */
  stage(tenant: string, className: string, change: StagedChange): Promise<void>;
  /** Removes every change staged for the class: those it removed. */
  discardStaged(tenant: string, className: string): Promise<StagedChange[]>;
  /** Removes these staged changes, each only while it is still staged as given (a later one stays). */
  unstage(tenant: string, className: string, changes: readonly StagedChange[]): Promise<void>;
  /** Keeps the class's values as a rollout of its staged changes brings them, apart from any change after. */
  freeze(
    tenant: string,
    className: string,
    rolloutId: string,
    values: readonly ParameterRecord[],
  ): Promise<void>;
  /** The class's values as the rollout froze them; none for a rollout that froze none. */
  frozen(tenant: string, className: string, rolloutId: string): Promise<ParameterRecord[]>;
}

/**
 * Where sensitive parameters' secrets are read, by reference: Secrets Manager's and Parameter Store's current
 * values. The secret passes through the agent API's memory on its way into the flow an agent downloads, and
 * nowhere else.
 */
export interface SecretStore {
  /** The secret's current value; undefined when the store has no such secret, or its value no such JSON key. */
  read(reference: SecretReference): Promise<string | undefined>;
}

import { BeaconError } from "../errors.js";

/**
 * A parameter's value at one layer: the text itself, or for a sensitive parameter a reference to where the
 * secret is kept (secret-refs.ts), which is resolved only when an agent downloads its flow. Beacon never
 * holds the secret itself.
 */
export type ParameterValue = { value: string } | { secretRef: string };

/** Where a value comes from, each overriding the ones before it. */
export const ParameterLayers = ["flow", "class", "group", "agent"] as const;
export type ParameterLayer = (typeof ParameterLayers)[number];

/** The layers a person sets values at; the flow's own values come with its version. */
export type ValueLayer = Exclude<ParameterLayer, "flow">;

/** One value set at a layer, and who set it when. */
export interface ParameterRecord {
  name: string;
  value: ParameterValue;
  updatedAt: number;
  /** Subject of the token that set it. */
  updatedBy: string;
}

/**
 * A change of a class's value staged for a rollout (a class whose value changes roll out): the value the
 * name will have, or none when the change removes the class's value.
 */
export interface StagedChange {
  name: string;
  /** Absent when the change removes the class's value. */
  value?: ParameterValue;
  updatedAt: number;
  /** Subject of the token that staged it. */
  updatedBy: string;
}

/**
 * A parameter name as MiNiFi and NiFi take one: letters, digits, space, `-`, `_` and `.`, neither starting
 * nor ending with a space (a name agents would trim is a different name), at most 256 characters.
 * schemas/console/openapi.json states the same pattern.
 */
export const PARAMETER_NAME_PATTERN = /^[A-Za-z0-9._-](?:[A-Za-z0-9 ._-]{0,254}[A-Za-z0-9._-])?$/;

/** Largest value, in UTF-8 bytes: enough for an address list or a certificate, small enough for a layer to be read in one query. */
export const MAX_PARAMETER_VALUE_BYTES = 4096;

/** Most values one class or one agent holds, so a layer stays one query's page. */
export const MAX_PARAMETERS_PER_LAYER = 100;

export const isParameterName = (name: string): boolean => PARAMETER_NAME_PATTERN.test(name);

export function assertParameterName(name: string): void {
  if (!isParameterName(name))
    throw new BeaconError(
      "invalid_request",
      "A parameter name is 1 to 256 characters from A-Z a-z 0-9 space . _ -, not starting or ending with a space",
    );
}

export const isSecretReference = (value: ParameterValue): value is { secretRef: string } =>
  "secretRef" in value;

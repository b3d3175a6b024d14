/** What stands in a kept answer for a value whose key looks secret. */
export const REDACTED = "[redacted by Beacon]";

/**
 * The one list of what marks a key as secret: a key holds one when, lower-cased and with its separators
 * (`.`, `_`, `-`, spaces) removed, it contains any of these. The C++ agent already leaves out every
 * property whose key contains `pass`; Beacon redacts the rest of what looks like a password, a secret, a
 * token or key material, wherever it sits in the answer (a property, a component's state, a metric).
 */
export const SECRET_KEY_MARKERS = [
  "pass",
  "pwd",
  "secret",
  "token",
  "credential",
  "privatekey",
  "apikey",
  "accesskey",
  "signingkey",
  "sessionkey",
] as const;

/** The fields a name–value pair names itself and carries its value in (`{"name": ..., "value": ...}`). */
const PAIR_FIELDS = [
  { name: "name", value: "value" },
  { name: "propertyName", value: "propertyValue" },
] as const;

export function isSecretKey(key: string): boolean {
  const squeezed = key.toLowerCase().replace(/[._\-\s]/g, "");
  return SECRET_KEY_MARKERS.some((marker) => squeezed.includes(marker));
}

/**
 * A copy of a JSON value with every value whose key looks secret (isSecretKey) replaced by REDACTED, whole,
 * whatever its type, and the value of every name–value pair whose name does; the rest is kept as it was.
 */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value !== "object" || value === null) return value;
  const object = value as Record<string, unknown>;
  const pairValue = PAIR_FIELDS.find(
    (pair) => typeof object[pair.name] === "string" && isSecretKey(object[pair.name] as string),
  )?.value;
  return Object.fromEntries(
    Object.entries(object).map(([key, entry]) =>
      isSecretKey(key) || key === pairValue ? [key, REDACTED] : [key, redactSecrets(entry)],
    ),
  );
}

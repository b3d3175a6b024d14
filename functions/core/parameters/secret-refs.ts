/**
 * Where a sensitive parameter's secret is kept, spelled as one string:
 *
 * - an AWS Secrets Manager secret by its full ARN, the one with the six-character suffix Secrets Manager adds
 *   (`arn:aws:secretsmanager:eu-west-1:123456789012:secret:plant/kafka-AbCdEf`): the whole SecretString;
 * - the same ARN followed by `:SecretString:<json key>`, as CloudFormation's dynamic references spell it: the
 *   key's value in a SecretString that holds a JSON object;
 * - an SSM Parameter Store parameter by name, `ssm:/plant/kafka/password` (a SecureString, or any type).
 *
 * Each names the secret, never holds it; the AWSCURRENT version is the one resolved. A tenant names only its own
 * secrets: a secret's name starts with `beacon/<tenant>/`, a parameter's with `/beacon/<tenant>/`
 * (tenantSecretReference). The agent API's role may read below `beacon/` and `/beacon/` alone, so that the
 * secrets of the account Beacon runs in are out of every tenant's reach, and each tenant's out of the others'.
 * Whether the secret exists is for the resolution at flow download.
 */

/** AWS partitions (aws, aws-cn, aws-us-gov, the isolated ones), region, account, then the secret's name and suffix. */
const SECRETS_MANAGER_ARN =
  /^arn:aws(?:-[a-z]+)*:secretsmanager:[a-z]{2}(?:-[a-z]+)+-\d:\d{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}-[A-Za-z0-9]{6}$/;

/** The JSON key of `:SecretString:<key>`: printable ASCII without a colon, which would make the spelling ambiguous. */
const JSON_KEY = /^[\x21-\x39\x3b-\x7e]{1,256}$/;

const JSON_KEY_MARK = ":SecretString:";

/** What precedes a secret's name in its ARN, and the `-` and six characters Secrets Manager adds after it. */
const SECRET_MARK = ":secret:";
const SECRET_SUFFIX_LENGTH = 7;

/** An SSM parameter name: a hierarchy of `/`-separated segments, or one segment, as Parameter Store takes them. */
const SSM_PARAMETER_NAME = /^\/?[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*$/;
const SSM_PARAMETER_NAME_MAX = 1011;
/** Names Parameter Store reserves for AWS: beginning with `aws` or `ssm`, in any case, with or without the `/`. */
const SSM_RESERVED = /^\/?(?:aws|ssm)/i;

const SSM_PREFIX = "ssm:";

export type SecretReference =
  | { store: "secretsmanager"; secretArn: string; jsonKey?: string }
  | { store: "ssm"; parameterName: string };

/** The reference a string spells, or undefined when it spells none of the forms above. */
export function parseSecretReference(text: string): SecretReference | undefined {
  if (text.startsWith(SSM_PREFIX)) {
    const parameterName = text.slice(SSM_PREFIX.length);
    return parameterName.length <= SSM_PARAMETER_NAME_MAX &&
      SSM_PARAMETER_NAME.test(parameterName) &&
      !SSM_RESERVED.test(parameterName)
      ? { store: "ssm", parameterName }
      : undefined;
  }
  const mark = text.indexOf(JSON_KEY_MARK);
  const secretArn = mark < 0 ? text : text.slice(0, mark);
  const jsonKey = mark < 0 ? undefined : text.slice(mark + JSON_KEY_MARK.length);
  if (!SECRETS_MANAGER_ARN.test(secretArn)) return undefined;
  if (jsonKey === undefined) return { store: "secretsmanager", secretArn };
  return JSON_KEY.test(jsonKey) ? { store: "secretsmanager", secretArn, jsonKey } : undefined;
}

/** The secret's name, for the prefix rule: the part of the ARN before its suffix, or the parameter's name. */
function secretNameOf(reference: SecretReference): string {
  if (reference.store === "ssm") return reference.parameterName;
  const name = reference.secretArn.slice(reference.secretArn.indexOf(SECRET_MARK) + SECRET_MARK.length);
  return name.slice(0, -SECRET_SUFFIX_LENGTH);
}

/** Below which Beacon reads secrets at all, in each store: the agent API's role may read nothing else. */
export const BeaconSecretPrefixes = { secretsManager: "beacon/", parameterStore: "/beacon/" } as const;

/** Where a tenant's secrets are kept, in each store. */
export const tenantSecretPrefixes = (tenant: string) => ({
  secretsmanager: `${BeaconSecretPrefixes.secretsManager}${tenant}/`,
  ssm: `${BeaconSecretPrefixes.parameterStore}${tenant}/`,
});

/** The reference a string spells when it names a secret of the tenant's own (below its prefix), else undefined. */
export function tenantSecretReference(tenant: string, text: string): SecretReference | undefined {
  const reference = parseSecretReference(text);
  if (!reference) return undefined;
  const prefix = tenantSecretPrefixes(tenant)[reference.store];
  const name = secretNameOf(reference);
  return name.startsWith(prefix) && name.length > prefix.length ? reference : undefined;
}

/** The prefix rule as a refusal states it. */
export const TENANT_SECRET_RULE =
  "a tenant's secrets are named below beacon/<tenant>/ in Secrets Manager and /beacon/<tenant>/ in Parameter Store";

export const SECRET_REFERENCE_FORMS =
  "a Secrets Manager secret's full ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>), " +
  "optionally followed by :SecretString:<json key>, or ssm:<SSM parameter name>";

/**
 * The key's value in a SecretString holding a JSON object, as a `:SecretString:<key>` reference reads it;
 * undefined when the secret holds no JSON object, or it no such key.
 */
export function jsonKeyOf(secretString: string, key: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(secretString);
  } catch {
    return undefined;
  }
  const value =
    parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>)[key] : undefined;
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}

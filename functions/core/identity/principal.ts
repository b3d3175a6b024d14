import { isClassName } from "../c2/class-name.js";
import { BeaconError } from "../errors.js";
import { isValidIdentifier } from "./credentials.js";

/** Console roles, least to most privileged: each may do everything the ones before it may. */
export const Roles = ["viewer", "operator", "admin"] as const;
export type Role = (typeof Roles)[number];

/**
 * The token claims Beacon reads, named as a Cognito user pool issues custom attributes in ID tokens.
 * An external OIDC issuer must put the same names in its tokens.
 */
export const ConsoleClaims = {
  tenant: "custom:tenant",
  role: "custom:role",
  classes: "custom:classes",
  subject: "sub",
} as const;

/** Who calls the console API, as the verified token says and nothing else does. */
export interface Principal {
  tenant: string;
  role: Role;
  /** The token's subject, recorded on what the caller creates. */
  subject: string;
  /**
   * The agent classes the role is limited to; absent, the whole tenant. An agent of no class, or of a
   * class not listed, is out of reach, as another tenant's is.
   */
  classes?: readonly string[];
}

/**
 * The classes claim, in the spellings a token can carry it: a Cognito custom attribute is a string, so
 * there it is the names separated by commas (no class name holds one), `""` for none; an OIDC provider may
 * send a JSON array of names, which API Gateway's JWT authorizer hands on as `[a b]`. Anything else is
 * malformed: undefined, never the whole tenant.
 */
export function classesOfClaim(claim: unknown): string[] | undefined {
  const names = Array.isArray(claim)
    ? claim
    : typeof claim === "string"
      ? splitClassesClaim(claim)
      : undefined;
  if (!names?.every((name) => typeof name === "string" && isClassName(name))) return undefined;
  return [...new Set(names as string[])];
}

function splitClassesClaim(claim: string): string[] {
  const gatewayArray = /^\[(.*)\]$/.exec(claim);
  if (gatewayArray) return gatewayArray[1] === "" ? [] : (gatewayArray[1] as string).split(" ");
  return claim === "" ? [] : claim.split(",");
}

const isRole = (value: unknown): value is Role => Roles.includes(value as Role);

/**
 * The gateway has verified the token (signature, issuer, audience, expiry) before this runs; what is
 * left is whether it names a tenant and a role. Without either it is no Beacon identity: 401.
 */
export function principalFromClaims(claims: Readonly<Record<string, unknown>> | undefined): Principal {
  const tenant = claims?.[ConsoleClaims.tenant];
  const role = claims?.[ConsoleClaims.role];
  const subject = claims?.[ConsoleClaims.subject];
  const classesClaim = claims?.[ConsoleClaims.classes];
  if (typeof tenant !== "string" || !isValidIdentifier(tenant)) {
    throw new BeaconError("unauthenticated", `The token has no valid ${ConsoleClaims.tenant} claim`);
  }
  if (!isRole(role)) {
    throw new BeaconError(
      "unauthenticated",
      `The token's ${ConsoleClaims.role} claim must be one of ${Roles.join(", ")}`,
    );
  }
  if (typeof subject !== "string" || subject === "") {
    throw new BeaconError("unauthenticated", "The token has no subject");
  }
  if (classesClaim === undefined) return { tenant, role, subject };
  const classes = classesOfClaim(classesClaim);
  if (!classes) {
    throw new BeaconError(
      "unauthenticated",
      `The token's ${ConsoleClaims.classes} claim must list class names, separated by commas`,
    );
  }
  return { tenant, role, subject, classes };
}

/** Whether the principal may reach what belongs to `className` (undefined: to no class, or unknown). */
export const reachesClass = (principal: Pick<Principal, "classes">, className: string | undefined): boolean =>
  principal.classes === undefined || (className !== undefined && principal.classes.includes(className));

export function requireRole(principal: Principal, least: Role): void {
  if (Roles.indexOf(principal.role) < Roles.indexOf(least)) {
    throw new BeaconError("forbidden", `This needs the ${least} role; the token carries ${principal.role}`);
  }
}

import { BeaconError } from "../errors.js";
import { isValidIdentifier } from "./credentials.js";

/** Console roles, least to most privileged: each may do everything the ones before it may. */
export const Roles = ["viewer", "operator", "admin"] as const;
export type Role = (typeof Roles)[number];

/**
 * The token claims Beacon reads, named as a Cognito user pool issues custom attributes in ID tokens.
 * An external OIDC issuer must put the same names in its tokens.
 */
export const ConsoleClaims = { tenant: "custom:tenant", role: "custom:role", subject: "sub" } as const;

/** Who calls the console API, as the verified token says and nothing else does. */
export interface Principal {
  tenant: string;
  role: Role;
  /** The token's subject, recorded on what the caller creates. */
  subject: string;
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
  return { tenant, role, subject };
}

export function requireRole(principal: Principal, least: Role): void {
  if (Roles.indexOf(principal.role) < Roles.indexOf(least)) {
    throw new BeaconError("forbidden", `This needs the ${least} role; the token carries ${principal.role}`);
  }
}

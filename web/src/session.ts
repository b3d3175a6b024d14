/**
 * Who is signed in: the console API's bearer token and the claims the page reads from it to hide what the
 * role may not do. The API verifies the token and refuses anyway; the page never trusts these claims for
 * anything but what it shows.
 */
import { operations } from "./api/operations";
import { claimsOf } from "./jwt";

export const Roles = ["viewer", "operator", "admin"] as const;
export type Role = (typeof Roles)[number];

export interface Session {
  token: string;
  tenant: string;
  role: Role;
  subject: string;
  /** The agent classes the role is limited to (`custom:classes`); absent, the whole tenant. */
  classes?: string[];
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/** Per tab, gone when the tab closes: a console token is as good as the user's password until it expires. */
const STORAGE_KEY = "beacon.console.token";

export function sessionFromToken(token: string): Session | undefined {
  const claims = claimsOf(token);
  if (claims === undefined) return undefined;
  const { sub, exp } = claims;
  const tenant = claims["custom:tenant"];
  const role = claims["custom:role"];
  const classes = classesOf(claims["custom:classes"]);
  if (typeof tenant !== "string" || !Roles.includes(role as Role) || typeof exp !== "number" || !classes)
    return undefined;
  return {
    token,
    tenant,
    role: role as Role,
    subject: typeof sub === "string" ? sub : "",
    ...(classes.limited && { classes: classes.names }),
    expiresAt: exp * 1000,
  };
}

/**
 * The classes claim as a user pool carries it (names separated by commas) or an OIDC provider may (an
 * array of names); undefined for anything else, which the API refuses on every route.
 */
function classesOf(claim: unknown): { limited: false } | { limited: true; names: string[] } | undefined {
  if (claim === undefined) return { limited: false };
  const names = typeof claim === "string" ? (claim === "" ? [] : claim.split(",")) : claim;
  if (!Array.isArray(names) || !names.every((name) => typeof name === "string" && name !== "")) {
    return undefined;
  }
  return { limited: true, names: [...new Set(names as string[])] };
}

export function storedSession(now = Date.now()): Session | undefined {
  const token = sessionStorage.getItem(STORAGE_KEY);
  const session = token === null ? undefined : sessionFromToken(token);
  if (session === undefined || session.expiresAt <= now) {
    sessionStorage.removeItem(STORAGE_KEY);
    return undefined;
  }
  return session;
}

export function storeSession(session: Session | undefined): void {
  if (session === undefined) sessionStorage.removeItem(STORAGE_KEY);
  else sessionStorage.setItem(STORAGE_KEY, session.token);
}

/** A console API route as its OpenAPI document keys it: `GET /api/v1/agents`. */
export type ApiRoute = keyof typeof operations;

/**
 * Whether the session may call the route: its role reaches the route's `x-beacon-role`, and, limited to
 * some classes, it is not refused the route for concerning the whole tenant (`x-beacon-scope: tenant`).
 */
export function mayCall(session: Session, route: ApiRoute): boolean {
  const { role, scope } = operations[route];
  return mayAct(session, role) && !(scope === "tenant" && session.classes !== undefined);
}

/** Whether the session's role reaches `least`, as the API's `x-beacon-role` orders them. */
export function mayAct(session: Session, least: Role): boolean {
  return Roles.indexOf(session.role) >= Roles.indexOf(least);
}

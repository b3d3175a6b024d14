/**
 * Who is signed in: the console API's bearer token and the claims the page reads from it to hide what the
 * role may not do. The API verifies the token and refuses anyway; the page never trusts these claims for
 * anything but what it shows.
 */
import { claimsOf } from "./jwt";

export const Roles = ["viewer", "operator", "admin"] as const;
export type Role = (typeof Roles)[number];

export interface Session {
  token: string;
  tenant: string;
  role: Role;
  subject: string;
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
  if (typeof tenant !== "string" || !Roles.includes(role as Role) || typeof exp !== "number")
    return undefined;
  return {
    token,
    tenant,
    role: role as Role,
    subject: typeof sub === "string" ? sub : "",
    expiresAt: exp * 1000,
  };
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

/** Whether the session's role reaches `least`, as the API's `x-beacon-role` orders them. */
export function mayAct(session: Session, least: Role): boolean {
  return Roles.indexOf(session.role) >= Roles.indexOf(least);
}

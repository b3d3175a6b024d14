/**
 * The local stack's stand-in for the console's identity provider (a Cognito user pool on AWS): one RSA key
 * in `.beacon/console-issuer/` signs tokens, and the local console gateway verifies them the way API
 * Gateway's JWT authorizer does.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLocalJWKSet, exportJWK, type JWTPayload, jwtVerify, SignJWT } from "jose";
import { ConsoleClaims, type Role } from "../../functions/core/identity/principal.js";

/** What the local gateway accepts, as the CDK app configures its authorizer with a user pool's values. */
export const LOCAL_ISSUER = "https://beacon.localhost/dev-issuer";
export const LOCAL_AUDIENCE = "beacon-console";
/** Where the local stack's issuer keeps its key: `npm start` verifies and `npm run token` signs with it. */
export const LOCAL_ISSUER_DIR = fileURLToPath(new URL("../../.beacon/console-issuer/", import.meta.url));
const KEY_ID = "beacon-dev-issuer-1";
const KEY_FILE = "signing-key.pem";
/** API Gateway's JWT authorizer verifies RSA signatures only. */
const RSA_ALGORITHMS = ["RS256", "RS384", "RS512"];
const DEFAULT_LIFETIME_SECONDS = 3600;

export interface ConsoleIssuer {
  issuer: string;
  audience: string;
  keyId: string;
  signingKey: KeyObject;
}

/** Creates the issuer's key on first use; later calls, and other processes, read the same one. */
export async function ensureConsoleIssuer(dir: string): Promise<ConsoleIssuer> {
  const keyPath = join(dir, KEY_FILE);
  let pem = await readFile(keyPath, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (pem === undefined) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    try {
      // Exclusive create: of two processes starting at once, one writes and both then read its key.
      await writeFile(keyPath, privateKey.export({ type: "pkcs8", format: "pem" }), {
        mode: 0o600,
        flag: "wx",
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    pem = await readFile(keyPath, "utf8");
  }
  const signingKey = createPrivateKey(pem);
  return { issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, keyId: KEY_ID, signingKey };
}

export interface ConsoleIdentity {
  tenant: string;
  role: Role;
  subject?: string;
  /** The classes the role is limited to, as a Cognito attribute carries them; the whole tenant when absent. */
  classes?: string[];
}

/** A token as a user pool issues a console user's ID token: tenant and role as custom attributes. */
export function consoleToken(
  issuer: ConsoleIssuer,
  identity: ConsoleIdentity,
  lifetimeSeconds = DEFAULT_LIFETIME_SECONDS,
): Promise<string> {
  return signToken(issuer, {
    sub: identity.subject ?? `${identity.tenant}-${identity.role}`,
    [ConsoleClaims.tenant]: identity.tenant,
    [ConsoleClaims.role]: identity.role,
    ...(identity.classes && { [ConsoleClaims.classes]: identity.classes.join(",") }),
    exp: Math.floor(Date.now() / 1000) + lifetimeSeconds,
  });
}

/** Signs any payload with the issuer's key: issuer, audience and issue time unless the payload sets them. */
export function signToken(
  issuer: ConsoleIssuer,
  payload: JWTPayload,
  signingKey = issuer.signingKey,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: issuer.issuer, aud: issuer.audience, iat: now, ...payload })
    .setProtectedHeader({ alg: "RS256", kid: issuer.keyId, typ: "JWT" })
    .sign(signingKey);
}

export interface JwtAuthorizer {
  /** The claims and scopes as API Gateway passes them on, or undefined for a token it would refuse. */
  authorize(
    authorization: string | undefined,
  ): Promise<{ claims: Record<string, string>; scopes: null } | undefined>;
}

/**
 * API Gateway's JWT authorizer, step by step: the token from the Authorization header (with or without
 * "Bearer "), an RSA signature by a key of the issuer's key set named by `kid`, `iss` equal to the issuer,
 * `aud` (or, without one, `client_id`) among the audiences, `exp` in the future, `nbf` and `iat` in the past.
 */
export async function makeJwtAuthorizer(issuer: ConsoleIssuer): Promise<JwtAuthorizer> {
  const publicKey = await exportJWK(createPublicKey(issuer.signingKey));
  const keySet = createLocalJWKSet({ keys: [{ ...publicKey, kid: issuer.keyId, alg: "RS256", use: "sig" }] });
  return {
    async authorize(authorization) {
      const token = authorization?.replace(/^Bearer\s+/i, "").trim();
      if (!token) return undefined;
      try {
        const { payload } = await jwtVerify(token, keySet, {
          issuer: issuer.issuer,
          algorithms: RSA_ALGORITHMS,
        });
        const audiences = payload.aud === undefined ? [payload.client_id] : [payload.aud].flat();
        if (!audiences.includes(issuer.audience)) return undefined;
        if (payload.exp === undefined) return undefined;
        if (payload.iat !== undefined && payload.iat > Math.floor(Date.now() / 1000)) return undefined;
        return { claims: asGatewayClaims(payload), scopes: null };
      } catch {
        return undefined;
      }
    },
  };
}

/** API Gateway hands every claim over as a string: numbers and booleans printed, lists as "[a b]". */
function asGatewayClaims(payload: JWTPayload): Record<string, string> {
  return Object.fromEntries(
    Object.entries(payload).map(([name, value]) => [
      name,
      Array.isArray(value)
        ? `[${value.join(" ")}]`
        : typeof value === "object" && value !== null
          ? JSON.stringify(value)
          : String(value),
    ]),
  );
}

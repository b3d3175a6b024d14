import { X509Certificate } from "node:crypto";
import { access, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { APIGatewayEventClientCertificate } from "aws-lambda";
import {
  type CertificateAndKey,
  createCertificateAuthority,
  DAY_MS,
  hasSubject,
  type IssueOptions,
  issueWithCa,
  type SigningAuthority,
} from "../../functions/adapters/x509/issuer.js";
import {
  type AgentTrust,
  agentTrustOf,
  spellTenantCaRegistrations,
  type TenantCa,
  type TenantCaRegistration,
  tenantCaRegistrationsOf,
} from "../../functions/adapters/x509/trust.js";
import { isValidIdentifier } from "../../functions/core/identity/credentials.js";
import { distinguishedName } from "../../functions/core/identity/distinguished-name.js";

/** A certificate this close to expiry is reissued rather than handed out. */
const RENEW_BEFORE_MS = DAY_MS;
/** X.509 bounds CN and O at 64 characters (RFC 5280, ub-common-name, ub-organization-name). */
const MAX_NAME_LENGTH = 64;
const LOCK_WAIT_MS = 30_000;
/** Creating certificates takes well under a second: an older lock was left by a process that died. */
const STALE_LOCK_MS = 10_000;

export const DEV_TENANT = "dev";
export const DEV_AGENT_ID = "dev-agent-1";

export interface CertificatePaths {
  certPath: string;
  keyPath: string;
}

/** A client certificate's files and the CA that the gateway trusts and the agent checks the server with. */
export interface IssuedClientCertificate extends CertificatePaths {
  caPath: string;
}

export interface DevCertificates {
  dir: string;
  caPath: string;
  caKeyPath: string;
  caPem: string;
  server: CertificatePaths;
  /** Fleet certificate of the dev tenant: speaks for any agent of tenant "dev". */
  fleet: CertificatePaths;
  /** Agent certificate of dev-agent-1 in tenant "dev". */
  agent: CertificatePaths;
}

export type ClientCertificateRequest =
  | { tenant: string; agentId: string }
  | { tenant: string; fleet: true; name?: string };

/**
 * The client certificate (PEM or DER) as API Gateway hands it to the Lambda in
 * `requestContext.authentication.clientCert`. AWS's mTLS launch example, a real capture, fixes the format:
 * DNs comma-separated in the order the certificate encodes them ("C=US,ST=Washington,…,CN=My Client"),
 * values RFC 2253-escaped; dates as OpenSSL prints them ("Aug  5 00:28:21 2120 GMT"); serial 01 as "1",
 * which reads as an integer, taken here as decimal.
 */
export function certificateSummary(certificate: string | Buffer): APIGatewayEventClientCertificate {
  const parsed = new X509Certificate(certificate);
  return {
    clientCertPem: parsed.toString(),
    subjectDN: distinguishedName(parsed.subject),
    issuerDN: distinguishedName(parsed.issuer),
    serialNumber: BigInt(`0x${parsed.serialNumber}`).toString(10),
    validity: { notBefore: parsed.validFrom, notAfter: parsed.validTo },
  };
}

/**
 * Creates the dev CA, the local gateway's server certificate and the dev tenant's fleet and agent
 * certificates in `dir`, or reuses those already there that the CA signed and that are still valid.
 */
export async function ensureDevCertificates(dir: string): Promise<DevCertificates> {
  const existing = await readDevCertificates(dir);
  if (existing) return existing;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return withDirectoryLock(dir, async () => {
    const ca = await ensureCertificateAuthority(dir);
    const server = await ensureIssued(dir, SERVER_STEM, ca, {
      subject: { commonName: "localhost", organization: "Beacon" },
      usage: "serverAuth",
      dnsNames: ["localhost"],
      ipAddresses: ["127.0.0.1"],
    });
    const fleet = await ensureIssued(dir, DEV_FLEET_STEM, ca, clientIssueOptions(DEV_FLEET));
    const agent = await ensureIssued(dir, DEV_AGENT_STEM, ca, clientIssueOptions(DEV_AGENT));
    return { ...caPaths(dir), caPem: ca.certPem, server, fleet, agent };
  });
}

/**
 * Issues `<tenant>-<agentId>` or `<tenant>-fleet` (`<tenant>-fleet-<name>` for a named fleet) in `dir`,
 * creating the dev CA first if needed. A still-valid certificate for the same subject is kept as it is.
 */
export async function issueClientCertificate(
  dir: string,
  request: ClientCertificateRequest,
): Promise<IssuedClientCertificate> {
  validateRequest(request);
  const { caPath } = await ensureDevCertificates(dir);
  const issued = await withDirectoryLock(dir, async () =>
    ensureIssued(dir, fileStem(request), await readCertificateAuthority(dir), clientIssueOptions(request)),
  );
  return { ...issued, caPath };
}

/**
 * The client certificates in `dir` that its dev CA signed, by file name: every `<name>.pem` but the CA's
 * own and the gateway's server certificate. None before the CA exists.
 */
export async function clientCertificatesIn(dir: string): Promise<string[]> {
  const generations = await caGenerations(dir);
  if (generations.length === 0) return [];
  const notClients = new Set([
    ...generations.map((generation) => generation.certPath),
    leafPaths(dir, SERVER_STEM).certPath,
  ]);
  const found: string[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const certPath = join(dir, name);
    if (!name.endsWith(".pem") || notClients.has(certPath)) continue;
    const certificate = new X509Certificate(await readFile(certPath));
    if (generations.some(({ certificate: ca }) => isIssuedBy(certificate, ca))) found.push(certPath);
  }
  return found;
}

/**
 * The dev CA's generations, as files in the certs folder. The current one (`ca.pem`, `ca.key`) signs; a next
 * one (`ca-next.pem`, `ca-next.key`) is trusted before it signs, so agents can be given certificates of it
 * while the current one's still work; the previous one (`ca-previous.pem`, no key: it signs nothing more)
 * is trusted until it is retired. All share the name "CN=Beacon Dev CA,O=Beacon" and differ in key, which
 * each certificate's authority key identifier names: so the agent API's binding of Beacon's CA to every
 * tenant holds across a rotation, without a restart.
 */
export const CaGenerations = ["current", "next", "previous"] as const;
export type CaGeneration = (typeof CaGenerations)[number];
const CA_STEMS: Record<CaGeneration, string> = { current: "ca", next: "ca-next", previous: "ca-previous" };

export interface CaGenerationInFolder {
  generation: CaGeneration;
  certPath: string;
  certificate: X509Certificate;
}

export async function caGenerations(dir: string): Promise<CaGenerationInFolder[]> {
  const found: CaGenerationInFolder[] = [];
  for (const generation of CaGenerations) {
    const { certPath } = leafPaths(dir, CA_STEMS[generation]);
    const pem = await readOptional(certPath);
    if (pem !== undefined) found.push({ generation, certPath, certificate: new X509Certificate(pem) });
  }
  return found;
}

/**
 * Tenant CAs the agent gateway trusts beside Beacon's: `tenant-cas/<tenant>.pem`, each bound to the tenant its
 * file names by Beacon's own rule, and those `npm run tenant-ca` registered in `tenant-cas/tenant-cas.json`
 * (the deployment's `agentTenantCas` format), each with its rule, their files in `tenant-cas/<tenant>/`. Such
 * a CA is a tenant's own (its device PKI): it may speak for that tenant and for no other.
 */
export const TENANT_CA_DIR = "tenant-cas";
const TENANT_CA_REGISTRY = "tenant-cas.json";

/** The agent gateway's trust store and the agent API's bindings, both from the certs folder. */
export async function agentTrust(dir: string): Promise<AgentTrust> {
  const beacon = await caGenerations(dir);
  return agentTrustOf(
    beacon.map(({ certificate }) => certificate.toString()).join(""),
    await tenantCasIn(dir),
  );
}

async function tenantCasIn(dir: string): Promise<TenantCa[]> {
  return [
    ...(await tenantCasByFileName(dir)),
    ...(await registeredTenantCas(dir, await tenantCaRegistrations(dir))),
  ];
}

/** `tenant-cas/<tenant>.pem`: a CA for the tenant its file names, by Beacon's own rule. */
async function tenantCasByFileName(dir: string): Promise<TenantCa[]> {
  const tenantDir = join(dir, TENANT_CA_DIR);
  const names = await readdir(tenantDir).catch((error: unknown) => {
    if (errorCode(error) === "ENOENT") return [] as string[];
    throw error;
  });
  const found: TenantCa[] = [];
  for (const name of names.filter((candidate) => candidate.endsWith(".pem")).sort()) {
    const tenant = name.slice(0, -".pem".length);
    validateIdentifier("tenant", tenant);
    found.push({ tenant, pem: await readFile(join(tenantDir, name), "utf8") });
  }
  return found;
}

async function registeredTenantCas(
  dir: string,
  registrations: TenantCaRegistration[],
  pems: ReadonlyMap<string, string> = new Map(),
): Promise<TenantCa[]> {
  const found: TenantCa[] = [];
  for (const { tenant, ca, agentId } of registrations) {
    const pem = pems.get(ca) ?? (await readFile(join(dir, TENANT_CA_DIR, ca), "utf8"));
    found.push({ tenant, pem, ...(agentId === undefined ? {} : { agentId }) });
  }
  return found;
}

/** The tenant CAs `npm run tenant-ca` registered, their files relative to the tenant CA folder. */
export async function tenantCaRegistrations(dir: string): Promise<TenantCaRegistration[]> {
  const registryPath = join(dir, TENANT_CA_DIR, TENANT_CA_REGISTRY);
  const registry = await readOptional(registryPath);
  return registry === undefined ? [] : tenantCaRegistrationsOf(JSON.parse(registry), registryPath);
}

/**
 * Registers a tenant's CA with its rule (identityRuleOf's spelling; absent: Beacon's own rule), or gives a
 * CA already registered for the tenant its new rule. Refused, writing nothing, when the agent API could not
 * take the trust that results (one CA for two tenants, a rule it cannot read).
 */
export async function registerTenantCa(
  dir: string,
  registration: { tenant: string; caPem: string; agentId?: string },
): Promise<{ certPath: string; replaced: boolean }> {
  const { tenant, caPem, agentId } = registration;
  validateIdentifier("tenant", tenant);
  const ca = new X509Certificate(caPem);
  if (!ca.ca) throw new Error(`${distinguishedName(ca.subject)} is not a CA certificate`);
  await ensureDevCertificates(dir);
  return withDirectoryLock(dir, async () => {
    const file = tenantCaFile(tenant, ca);
    const existing = await tenantCaRegistrations(dir);
    const others = existing.filter((other) => other.tenant !== tenant || other.ca !== file);
    const registrations = [...others, { tenant, ca: file, ...(agentId === undefined ? {} : { agentId }) }];
    // The trust that results, as the gateway and the agent API will read it: refused before anything is written.
    const beacon = (await caGenerations(dir)).map(({ certificate }) => certificate.toString()).join("");
    agentTrustOf(beacon, [
      ...(await tenantCasByFileName(dir)),
      ...(await registeredTenantCas(dir, registrations, new Map([[file, ca.toString()]]))),
    ]);
    const certPath = join(dir, TENANT_CA_DIR, file);
    await mkdir(join(dir, TENANT_CA_DIR, tenant), { recursive: true, mode: 0o700 });
    await writeAtomically(certPath, ca.toString(), 0o644);
    await writeTenantCaRegistrations(dir, registrations);
    return { certPath, replaced: others.length < existing.length };
  });
}

/** Removes a tenant's registered CA, named by its file or its SHA-256 fingerprint's first digits. */
export async function removeTenantCa(dir: string, tenant: string, ca: string): Promise<string | undefined> {
  return withDirectoryLock(dir, async () => {
    const registrations = await tenantCaRegistrations(dir);
    const removed = registrations.find(
      (registration) =>
        registration.tenant === tenant &&
        (registration.ca === ca || registration.ca === `${tenant}/${ca}.pem`),
    );
    if (removed === undefined) return undefined;
    await writeTenantCaRegistrations(
      dir,
      registrations.filter((registration) => registration !== removed),
    );
    await rm(join(dir, TENANT_CA_DIR, removed.ca), { force: true });
    return removed.ca;
  });
}

/** A CA's file: under its tenant's folder, named by its certificate's fingerprint, so a rotation's CAs differ. */
const tenantCaFile = (tenant: string, ca: X509Certificate): string =>
  `${tenant}/${ca.fingerprint256.replaceAll(":", "").slice(0, 16).toLowerCase()}.pem`;

async function writeTenantCaRegistrations(dir: string, registrations: TenantCaRegistration[]): Promise<void> {
  const spelt = spellTenantCaRegistrations(registrations);
  await writeAtomically(
    join(dir, TENANT_CA_DIR, TENANT_CA_REGISTRY),
    `${JSON.stringify(spelt, null, 2)}\n`,
    0o644,
  );
}

/** The next CA, created unless the folder holds one: trusted at once, signing only once it is current. */
export async function createNextCa(dir: string): Promise<{ certPath: string; created: boolean }> {
  await ensureDevCertificates(dir);
  return withDirectoryLock(dir, async () => {
    const paths = caGenerationPaths(dir, "next");
    if ((await readOptional(paths.certPath)) !== undefined)
      return { certPath: paths.certPath, created: false };
    await refuseWhilePreviousTrusted(dir);
    await writeCertificateAndKey(paths, await createCertificateAuthority());
    return { certPath: paths.certPath, created: true };
  });
}

/**
 * The next CA becomes the current one, which signs from now on; the current one becomes the previous one,
 * trusted (without its key) until it is retired. The server certificate and the dev tenant's certificates
 * are issued again by the new CA; every other client certificate keeps working until its CA is retired.
 */
export async function rotateCa(dir: string): Promise<DevCertificates> {
  await withDirectoryLock(dir, async () => {
    const next = caGenerationPaths(dir, "next");
    const current = caGenerationPaths(dir, "current");
    const previous = caGenerationPaths(dir, "previous");
    const nextPem = await readOptional(next.certPath);
    if (nextPem === undefined)
      throw new Error("There is no next CA to rotate to: npm run ca -- next makes one");
    await refuseWhilePreviousTrusted(dir);
    const nextKeyPem = await readFile(next.keyPath, "utf8");
    await writeAtomically(previous.certPath, await readFile(current.certPath, "utf8"), 0o644);
    await writeCertificateAndKey(current, { certPem: nextPem, keyPem: nextKeyPem });
    await rm(next.certPath);
    await rm(next.keyPath);
  });
  return ensureDevCertificates(dir);
}

/** Beacon trusts at most two of its CAs at a time: the previous one must be retired before another comes. */
async function refuseWhilePreviousTrusted(dir: string): Promise<void> {
  const { certPath } = caGenerationPaths(dir, "previous");
  if ((await readOptional(certPath)) !== undefined) {
    throw new Error(
      `${certPath} is still trusted: retire it first (npm run ca -- retire), so that at most two CAs are`,
    );
  }
}

/**
 * The previous CA leaves the trust store: certificates it signed fail the handshake from now on. Returns the
 * client certificates in the folder that it signed, which are now of no use.
 */
export async function retireCa(dir: string): Promise<{ retired: boolean; stranded: string[] }> {
  return withDirectoryLock(dir, async () => {
    const { certPath } = caGenerationPaths(dir, "previous");
    const pem = await readOptional(certPath);
    if (pem === undefined) return { retired: false, stranded: [] };
    const retired = new X509Certificate(pem);
    const stranded: string[] = [];
    for (const name of (await readdir(dir)).sort()) {
      const path = join(dir, name);
      if (!name.endsWith(".pem") || path === certPath) continue;
      if (isIssuedBy(new X509Certificate(await readFile(path)), retired)) stranded.push(path);
    }
    await rm(certPath);
    return { retired: true, stranded };
  });
}

const SERVER_STEM = "server";
const DEV_FLEET: ClientCertificateRequest = { tenant: DEV_TENANT, fleet: true };
const DEV_AGENT: ClientCertificateRequest = { tenant: DEV_TENANT, agentId: DEV_AGENT_ID };
/** The dev agent's files carry its id alone ("dev-agent-1.pem"): the id already names the tenant. */
const DEV_FLEET_STEM = "dev-fleet";
const DEV_AGENT_STEM = DEV_AGENT_ID;

function clientIssueOptions(request: ClientCertificateRequest): IssueOptions {
  const subject =
    "agentId" in request
      ? { commonName: request.agentId, organizationalUnit: "agent", organization: request.tenant }
      : {
          commonName: request.name ?? `${request.tenant}-fleet`,
          organizationalUnit: "fleet",
          organization: request.tenant,
        };
  return { subject, usage: "clientAuth" };
}

function fileStem(request: ClientCertificateRequest): string {
  if ("agentId" in request) return `${request.tenant}-${request.agentId}`;
  return request.name === undefined ? `${request.tenant}-fleet` : `${request.tenant}-fleet-${request.name}`;
}

function validateRequest(request: ClientCertificateRequest): void {
  validateIdentifier("tenant", request.tenant);
  if ("agentId" in request) validateIdentifier("agent id", request.agentId);
  else if (request.name !== undefined) validateIdentifier("fleet name", request.name);
}

/** The agent API accepts only these identifiers, and they become file names here. */
function validateIdentifier(label: string, value: string): void {
  if (!isValidIdentifier(value) || value.length > MAX_NAME_LENGTH) {
    throw new Error(
      `Invalid ${label} ${JSON.stringify(value)}: use 1 to ${MAX_NAME_LENGTH} characters from ` +
        "A-Z a-z 0-9 . _ : @ -, starting with a letter or digit",
    );
  }
}

function caPaths(dir: string): { dir: string; caPath: string; caKeyPath: string } {
  const { certPath, keyPath } = caGenerationPaths(dir, "current");
  return { dir, caPath: certPath, caKeyPath: keyPath };
}

const caGenerationPaths = (dir: string, generation: CaGeneration) => leafPaths(dir, CA_STEMS[generation]);

function leafPaths(dir: string, stem: string): CertificatePaths {
  return { certPath: join(dir, `${stem}.pem`), keyPath: join(dir, `${stem}.key`) };
}

/** The fast path: every dev certificate is present, signed by the CA on disk and not about to expire. */
async function readDevCertificates(dir: string): Promise<DevCertificates | undefined> {
  const { caPath } = caPaths(dir);
  const caPem = await readOptional(caPath);
  if (caPem === undefined) return undefined;
  const ca = new X509Certificate(caPem);
  if (!isCurrent(ca)) return undefined;
  const server = leafPaths(dir, SERVER_STEM);
  const fleet = leafPaths(dir, DEV_FLEET_STEM);
  const agent = leafPaths(dir, DEV_AGENT_STEM);
  for (const paths of [server, fleet, agent]) {
    const certPem = await readOptional(paths.certPath);
    if (certPem === undefined || !isCurrentAndIssuedBy(new X509Certificate(certPem), ca)) return undefined;
    if (!(await exists(paths.keyPath))) return undefined;
  }
  return { ...caPaths(dir), caPem, server, fleet, agent };
}

async function ensureCertificateAuthority(dir: string): Promise<SigningAuthority> {
  const { caPath, caKeyPath } = caPaths(dir);
  const certPem = await readOptional(caPath);
  const keyPem = await readOptional(caKeyPath);
  if (certPem !== undefined && keyPem !== undefined && isCurrent(new X509Certificate(certPem))) {
    return { certPem, keyPem };
  }
  const ca = await createCertificateAuthority();
  await writeCertificateAndKey({ certPath: caPath, keyPath: caKeyPath }, ca);
  return ca;
}

async function readCertificateAuthority(dir: string): Promise<SigningAuthority> {
  const { caPath, caKeyPath } = caPaths(dir);
  return { certPem: await readFile(caPath, "utf8"), keyPem: await readFile(caKeyPath, "utf8") };
}

/** Keeps `<stem>.pem/.key` when the CA signed it for this subject and it is current; issues it otherwise. */
async function ensureIssued(
  dir: string,
  stem: string,
  ca: SigningAuthority,
  options: IssueOptions,
): Promise<CertificatePaths> {
  const paths = leafPaths(dir, stem);
  const existingPem = await readOptional(paths.certPath);
  if (existingPem !== undefined) {
    const existing = new X509Certificate(existingPem);
    // Tenant and agent ids may both contain "-", so two requests can share a file name: never swap identities.
    if (!hasSubject(existingPem, options.subject)) {
      throw new Error(
        `${paths.certPath} already holds the certificate of ${distinguishedName(existing.subject)}; ` +
          "move it away or choose another id",
      );
    }
    if (isCurrentAndIssuedBy(existing, new X509Certificate(ca.certPem)) && (await exists(paths.keyPath))) {
      return paths;
    }
  }
  await writeCertificateAndKey(paths, await issueWithCa(ca, options));
  return paths;
}

function isCurrent(certificate: X509Certificate): boolean {
  return Date.parse(certificate.validTo) - Date.now() > RENEW_BEFORE_MS;
}

function isIssuedBy(certificate: X509Certificate, ca: X509Certificate): boolean {
  return certificate.checkIssued(ca) && certificate.verify(ca.publicKey);
}

function isCurrentAndIssuedBy(certificate: X509Certificate, ca: X509Certificate): boolean {
  return isCurrent(certificate) && isIssuedBy(certificate, ca);
}

/** The key first, the certificate last, each by rename: a present certificate always has its key beside it. */
async function writeCertificateAndKey(paths: CertificatePaths, issued: CertificateAndKey): Promise<void> {
  await writeAtomically(paths.keyPath, issued.keyPem, 0o600);
  await writeAtomically(paths.certPath, issued.certPem, 0o644);
}

async function writeAtomically(path: string, content: string, mode: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode });
  await rename(temporary, path);
}

/**
 * Serialises creation across processes (`npm start` and `npm run cert` may both run on a fresh machine),
 * so a CA and the certificates it signed are never written by two processes at once.
 */
async function withDirectoryLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const lockPath = join(dir, ".lock");
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await writeFile(lockPath, String(process.pid), { flag: "wx" });
      break;
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
      const lockedAt = await stat(lockPath).then(
        (info) => info.mtimeMs,
        () => undefined,
      );
      if (lockedAt !== undefined && Date.now() - lockedAt > STALE_LOCK_MS) {
        await rm(lockPath, { force: true });
      } else if (Date.now() > deadline) {
        throw new Error(`Timed out waiting for ${lockPath}; remove it if no other Beacon process is running`);
      } else {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
  }
  try {
    return await work();
  } finally {
    await rm(lockPath, { force: true });
  }
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function errorCode(error: unknown): unknown {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

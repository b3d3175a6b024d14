import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCertificateAuthority, issueWithCa } from "../../functions/adapters/x509/issuer.js";
import {
  agentTrust,
  certificateSummary,
  clientCertificatesIn,
  createNextCa,
  ensureDevCertificates,
  issueClientCertificate,
  registerTenantCa,
  removeTenantCa,
  retireCa,
  rotateCa,
  TENANT_CA_DIR,
  tenantCaRegistrations,
} from "./certs.js";

const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
const DAY_MS = 24 * 60 * 60 * 1000;
const OPENSSL_DATE = /^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4} GMT$/;

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "beacon-certs-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function certificateAt(path: string): Promise<X509Certificate> {
  return new X509Certificate(await readFile(path, "utf8"));
}

async function expectPkcs8P256Key(path: string): Promise<void> {
  const pem = await readFile(path, "utf8");
  expect(pem.startsWith("-----BEGIN PRIVATE KEY-----\n")).toBe(true);
  const key = createPrivateKey(pem);
  expect(key.asymmetricKeyType).toBe("ec");
  expect(key.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
  expect((await stat(path)).mode & 0o777).toBe(0o600);
}

describe("ensureDevCertificates", () => {
  it("creates the dev CA, the server certificate and the dev tenant's fleet and agent certificates", async () => {
    const dev = await ensureDevCertificates(dir);

    expect(dev).toMatchObject({
      caPath: join(dir, "ca.pem"),
      caKeyPath: join(dir, "ca.key"),
      server: { certPath: join(dir, "server.pem"), keyPath: join(dir, "server.key") },
      fleet: { certPath: join(dir, "dev-fleet.pem"), keyPath: join(dir, "dev-fleet.key") },
      agent: { certPath: join(dir, "dev-agent-1.pem"), keyPath: join(dir, "dev-agent-1.key") },
    });
    for (const keyPath of [dev.caKeyPath, dev.server.keyPath, dev.fleet.keyPath, dev.agent.keyPath]) {
      await expectPkcs8P256Key(keyPath);
    }

    const ca = await certificateAt(dev.caPath);
    expect(ca.toString()).toBe(dev.caPem);
    expect(ca.ca).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(Date.parse(ca.validTo) - Date.now()).toBeGreaterThan(3640 * DAY_MS);

    const server = await certificateAt(dev.server.certPath);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(server.ca).toBe(false);
    expect(server.checkHost("localhost")).toBe("localhost");
    expect(server.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(server.keyUsage).toEqual([SERVER_AUTH]);

    for (const [paths, subjectDN] of [
      [dev.fleet, "CN=dev-fleet,OU=fleet,O=dev"],
      [dev.agent, "CN=dev-agent-1,OU=agent,O=dev"],
    ] as const) {
      const client = await certificateAt(paths.certPath);
      expect(client.verify(ca.publicKey)).toBe(true);
      expect(client.keyUsage).toEqual([CLIENT_AUTH]);
      expect(certificateSummary(client.toString()).subjectDN).toBe(subjectDN);
    }
  });

  it("reuses what it created on later calls", async () => {
    const first = await ensureDevCertificates(dir);
    const before = await stat(first.agent.certPath);
    const second = await ensureDevCertificates(dir);
    expect(second).toEqual(first);
    expect((await stat(first.agent.certPath)).mtimeMs).toBe(before.mtimeMs);
  });

  it("creates one CA when called concurrently", async () => {
    const results = await Promise.all([ensureDevCertificates(dir), ensureDevCertificates(dir)]);
    expect(results[1].caPem).toBe(results[0].caPem);
    const ca = await certificateAt(results[0].caPath);
    expect((await certificateAt(results[0].agent.certPath)).verify(ca.publicKey)).toBe(true);
  });

  it("reissues the certificates when the CA is replaced", async () => {
    const first = await ensureDevCertificates(dir);
    await rm(first.caPath);
    const second = await ensureDevCertificates(dir);
    expect(second.caPem).not.toBe(first.caPem);
    const ca = new X509Certificate(second.caPem);
    for (const paths of [second.server, second.fleet, second.agent]) {
      expect((await certificateAt(paths.certPath)).verify(ca.publicKey)).toBe(true);
    }
  });
});

describe("issueClientCertificate", () => {
  it("issues an agent certificate named <tenant>-<agent>, creating the dev CA first", async () => {
    const issued = await issueClientCertificate(dir, { tenant: "acme", agentId: "pump-7" });
    expect(issued).toEqual({
      certPath: join(dir, "acme-pump-7.pem"),
      keyPath: join(dir, "acme-pump-7.key"),
      caPath: join(dir, "ca.pem"),
    });
    await expectPkcs8P256Key(issued.keyPath);
    const certificate = await certificateAt(issued.certPath);
    expect(certificate.verify((await certificateAt(issued.caPath)).publicKey)).toBe(true);
    expect(certificate.keyUsage).toEqual([CLIENT_AUTH]);
    expect(certificateSummary(certificate.toString()).subjectDN).toBe("CN=pump-7,OU=agent,O=acme");
  });

  it("issues fleet certificates, default and named", async () => {
    const fleet = await issueClientCertificate(dir, { tenant: "acme", fleet: true });
    const named = await issueClientCertificate(dir, { tenant: "acme", fleet: true, name: "eu-west" });
    expect(fleet.certPath).toBe(join(dir, "acme-fleet.pem"));
    expect(named.certPath).toBe(join(dir, "acme-fleet-eu-west.pem"));
    expect(certificateSummary(await readFile(fleet.certPath)).subjectDN).toBe(
      "CN=acme-fleet,OU=fleet,O=acme",
    );
    expect(certificateSummary(await readFile(named.certPath)).subjectDN).toBe("CN=eu-west,OU=fleet,O=acme");
  });

  it("keeps a still-valid certificate when asked again", async () => {
    const request = { tenant: "acme", agentId: "pump-7" };
    const first = await issueClientCertificate(dir, request);
    const pem = await readFile(first.certPath, "utf8");
    await issueClientCertificate(dir, request);
    expect(await readFile(first.certPath, "utf8")).toBe(pem);
  });

  it.each([
    ["an empty tenant", { tenant: "", agentId: "a" }, /Invalid tenant ""/],
    ["a path in the tenant", { tenant: "../etc", agentId: "a" }, /Invalid tenant/],
    ["a slash in the agent id", { tenant: "acme", agentId: "a/b" }, /Invalid agent id/],
    ["a space in the agent id", { tenant: "acme", agentId: "a b" }, /Invalid agent id/],
    ["a leading dash", { tenant: "acme", agentId: "-a" }, /Invalid agent id/],
    ["an id over 64 characters", { tenant: "acme", agentId: "a".repeat(65) }, /Invalid agent id/],
    ["a bad fleet name", { tenant: "acme", fleet: true as const, name: "x,y" }, /Invalid fleet name/],
  ])("rejects %s", async (_label, request, message) => {
    await expect(issueClientCertificate(dir, request)).rejects.toThrow(message);
  });

  it("refuses to replace a file that holds another identity", async () => {
    await ensureDevCertificates(dir);
    // "dev" + "fleet" names the same file as the dev tenant's fleet certificate.
    await expect(issueClientCertificate(dir, { tenant: "dev", agentId: "fleet" })).rejects.toThrow(
      /dev-fleet\.pem already holds the certificate of CN=dev-fleet,OU=fleet,O=dev/,
    );
  });
});

describe("clientCertificatesIn", () => {
  it("finds the client certificates the dev CA signed, not the CA's, the server's or another CA's", async () => {
    expect(await clientCertificatesIn(dir)).toEqual([]);
    await ensureDevCertificates(dir);
    const issued = await issueClientCertificate(dir, { tenant: "acme", agentId: "pump-7" });
    const stranger = await issueWithCa(await createCertificateAuthority("Unknown CA"), {
      subject: { commonName: "stranger", organizationalUnit: "agent", organization: "acme" },
      usage: "clientAuth",
    });
    await writeFile(join(dir, "acme-stranger.pem"), stranger.certPem);

    expect(await clientCertificatesIn(dir)).toEqual([
      issued.certPath,
      join(dir, "dev-agent-1.pem"),
      join(dir, "dev-fleet.pem"),
    ]);
  });
});

describe("the dev CA's generations", () => {
  it("trust the next CA beside the current one, sign with it once rotated, and forget the old one once retired", async () => {
    const dev = await ensureDevCertificates(dir);
    const before = await issueClientCertificate(dir, { tenant: "acme", agentId: "pump-1" });
    const oldCa = await certificateAt(dev.caPath);
    await createNextCa(dir);
    const trustedBundle = async () => (await agentTrust(dir)).bundlePem;
    expect(await trustedBundle()).toContain(oldCa.toString());
    expect((await agentTrust(dir)).bindings).toEqual({ "CN=Beacon Dev CA,O=Beacon": "*" });

    const rotated = await rotateCa(dir);
    const newCa = await certificateAt(rotated.caPath);
    expect(newCa.publicKey.equals(oldCa.publicKey)).toBe(false);
    expect((await certificateAt(join(dir, "ca-previous.pem"))).toString()).toBe(oldCa.toString());
    await expect(stat(join(dir, "ca-previous.key"))).rejects.toThrow();
    expect(newCa.checkPrivateKey(createPrivateKey(await readFile(rotated.caKeyPath, "utf8")))).toBe(true);
    for (const paths of [rotated.server, rotated.fleet, rotated.agent])
      expect((await certificateAt(paths.certPath)).verify(newCa.publicKey)).toBe(true);
    // Certificates of the previous CA are still the dev CA's, registered and trusted, until it is retired.
    expect(await clientCertificatesIn(dir)).toContain(before.certPath);
    expect(await trustedBundle()).toContain(oldCa.toString());

    expect(await retireCa(dir)).toEqual({ retired: true, stranded: [before.certPath] });
    expect(await trustedBundle()).not.toContain(oldCa.toString());
    expect(await clientCertificatesIn(dir)).not.toContain(before.certPath);
    expect(await retireCa(dir)).toEqual({ retired: false, stranded: [] });
  });

  it("bind a tenant's CA in tenant-cas/ to that tenant, and tell two tenants' CAs of one name apart by key", async () => {
    await ensureDevCertificates(dir);
    await mkdir(join(dir, TENANT_CA_DIR));
    await writeFile(
      join(dir, TENANT_CA_DIR, "acme.pem"),
      (await createCertificateAuthority("Acme CA")).certPem,
    );
    expect((await agentTrust(dir)).bindings).toEqual({
      "CN=Beacon Dev CA,O=Beacon": "*",
      "CN=Acme CA,O=Beacon": ["acme"],
    });
    await writeFile(
      join(dir, TENANT_CA_DIR, "globex.pem"),
      (await createCertificateAuthority("Acme CA")).certPem,
    );
    const lookAlike = (await agentTrust(dir)).bindings["CN=Acme CA,O=Beacon"];
    expect(lookAlike).toEqual([
      { tenant: "acme", publicKey: expect.any(String) },
      { tenant: "globex", publicKey: expect.any(String) },
    ]);
  });

  it("register a tenant's CA with its rule, change the rule, refuse it for a second tenant, and remove it", async () => {
    const ca = await createCertificateAuthority("Edge CA");
    const first = await registerTenantCa(dir, { tenant: "acme", caPem: ca.certPem, agentId: "CN" });
    expect(first.replaced).toBe(false);
    expect((await agentTrust(dir)).bindings["CN=Edge CA,O=Beacon"]).toEqual([
      { tenant: "acme", agentId: "CN" },
    ]);
    expect((await registerTenantCa(dir, { tenant: "acme", caPem: ca.certPem, agentId: "*" })).replaced).toBe(
      true,
    );
    expect((await agentTrust(dir)).bindings["CN=Edge CA,O=Beacon"]).toEqual([
      { tenant: "acme", agentId: "*" },
    ]);
    await expect(registerTenantCa(dir, { tenant: "globex", caPem: ca.certPem })).rejects.toThrow(
      "a CA speaks for one tenant",
    );
    await expect(
      registerTenantCa(dir, { tenant: "acme", caPem: ca.certPem, agentId: "SAN:IP" }),
    ).rejects.toThrow("agentId");
    const [registration] = await tenantCaRegistrations(dir);
    expect(await removeTenantCa(dir, "acme", registration?.ca ?? "")).toBe(registration?.ca);
    expect((await agentTrust(dir)).bindings["CN=Edge CA,O=Beacon"]).toBeUndefined();
  });
});

describe("createCertificateAuthority and issueWithCa", () => {
  it("issue certificates that the dev CA does not vouch for", async () => {
    const dev = await ensureDevCertificates(dir);
    const unknownCa = await createCertificateAuthority("Unknown CA");
    const issued = await issueWithCa(unknownCa, {
      subject: { commonName: "dev-agent-1", organizationalUnit: "agent", organization: "dev" },
      usage: "clientAuth",
    });
    const certificate = new X509Certificate(issued.certPem);
    expect(certificate.verify(new X509Certificate(unknownCa.certPem).publicKey)).toBe(true);
    expect(certificate.verify(new X509Certificate(dev.caPem).publicKey)).toBe(false);
    expect(issued.keyPem.startsWith("-----BEGIN PRIVATE KEY-----\n")).toBe(true);
  });
});

describe("certificateSummary", () => {
  it("formats the certificate as API Gateway's clientCert, escaping DN values per RFC 2253", async () => {
    const ca = await createCertificateAuthority("Test CA");
    const issued = await issueWithCa(ca, {
      subject: { commonName: 'a,b+c"d', organizationalUnit: "agent", organization: "dev" },
      usage: "clientAuth",
    });
    const certificate = new X509Certificate(issued.certPem);
    const summary = certificateSummary(certificate.raw);
    expect(summary).toEqual({
      clientCertPem: issued.certPem,
      subjectDN: 'CN=a\\,b\\+c\\"d,OU=agent,O=dev',
      issuerDN: "CN=Test CA,O=Beacon",
      serialNumber: BigInt(`0x${certificate.serialNumber}`).toString(10),
      validity: { notBefore: certificate.validFrom, notAfter: certificate.validTo },
    });
    expect(summary.serialNumber).toMatch(/^[1-9]\d*$/);
    expect(summary.validity.notBefore).toMatch(OPENSSL_DATE);
    expect(summary.validity.notAfter).toMatch(OPENSSL_DATE);
  });
});

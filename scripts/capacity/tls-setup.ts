/**
 * What the server sends to set up one mutual-TLS connection, measured on real handshakes: certificate chains
 * shaped like the ones ACM serves, made with the `openssl` command, a Node TLS server that asks for the
 * client's certificate as the ALB's listener in verify mode does, an agent's ECDSA P-256 client certificate,
 * and a TCP relay between them that counts every byte each side sends. A C++ agent pays this on every
 * heartbeat (it opens a connection per request); a kept-alive Java agent about once an hour.
 */
import { execFile } from "node:child_process";
import { randomBytes, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import tls from "node:tls";
import { promisify } from "node:util";
import { agentTlsServerOptions } from "../../functions/shared/agent-tls.js";
import { type ServerKeyType, serverKeyNames, setupUnitOf, type UnitName } from "./inputs.js";

const run = promisify(execFile);

export const tlsVersions = ["TLSv1.2", "TLSv1.3"] as const;
export type TlsVersion = (typeof tlsVersions)[number];

/** The keys a server certificate is made with: ACM's two, and a private CA's. */
export const keyAlgorithms = ["rsa2048", "ecdsaP256"] as const satisfies readonly ServerKeyType[];
export type KeyAlgorithm = (typeof keyAlgorithms)[number];

/**
 * `acm`: the chain as ACM serves a public certificate: the leaf, its Amazon issuing intermediate, the Amazon
 * root cross-signed by Starfield Services Root G2, and that root cross-signed by Starfield Class 2, so that
 * clients with only the old roots still find a path. `leafAndIntermediate`: the shortest chain a client
 * trusting the Amazon root accepts. `privateCa`: a certificate from a private CA (the operator's or a tenant's,
 * as AWS Private CA issues one: short names, no certificate-transparency timestamps, no OCSP or CRL locations)
 * with its issuing CA, for agents that trust the private root. `privateLeaf`: such a certificate alone, issued by
 * the private root itself (a one-tier CA), which agents trust: OpenSSL, as MiNiFi C++ uses it, takes only a
 * self-signed certificate as a trust anchor by default, so a leaf alone needs its issuer to be the root.
 */
export const chainShapes = ["acm", "leafAndIntermediate", "privateCa", "privateLeaf"] as const;
export type ChainShape = (typeof chainShapes)[number];

/** Certificates each chain shape sends. */
export const certificatesIn: Record<ChainShape, number> = {
  acm: 4,
  leafAndIntermediate: 2,
  privateCa: 2,
  privateLeaf: 1,
};

/**
 * `stateless`: Node's default, two tickets each carrying the session encrypted after a TLS 1.3 handshake (one in
 * TLS 1.2), as a server that lets its clients resume sends them. `stateful`: what Beacon's own agent TLS servers
 * send (agentTlsServerOptions), a session id in each ticket and no session to resume.
 */
export const ticketModes = ["stateless", "stateful"] as const;
export type TicketMode = (typeof ticketModes)[number];

export interface HandshakeBytes {
  keyType: KeyAlgorithm;
  tlsVersion: TlsVersion;
  chain: ChainShape;
  tickets: TicketMode;
  /** Certificates the server sends, and their DER bytes. */
  certificates: number;
  certificateBytes: number;
  /**
   * The median over the handshakes of what the server sent on a connection that carried one request and its
   * reply, less the reply's own bytes: the handshake, session tickets, the reply's record framing, close_notify.
   */
  serverBytes: number;
  /** The same from the client, less the request's bytes (its ECDSA P-256 certificate, CertificateVerify, …). */
  clientBytes: number;
  /** Session tickets the client received on each connection: part of what the server sent. */
  sessionTickets: number;
  handshakes: number;
  cipher: string;
}

const AGENT_DOMAIN = "c2.beacon.example.com";
/**
 * The groups the listener's policy (ELBSecurityPolicy-TLS13-1-2-2021-06) and the agents' OpenSSL 3.0 share:
 * a Node whose OpenSSL offers the post-quantum hybrid would otherwise send a key share 1 KB larger.
 */
const KEY_EXCHANGE_GROUPS = "X25519:P-256";

interface KeySpec {
  /** `openssl req -newkey` arguments. */
  newKey: string[];
}
const rsa2048: KeySpec = { newKey: ["-newkey", "rsa:2048"] };
const ecdsaP256: KeySpec = { newKey: ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"] };

/**
 * The names are as long as Amazon Trust Services' own, so that the chain's bytes are too; the leaf has the
 * extensions an ACM public certificate has (names, key usages, policies, OCSP and CRL locations) and, in
 * place of its three certificate-transparency timestamps, an extension of their size.
 */
const CLASS_2_ROOT = "/C=US/O=Example Technologies, Inc./OU=Example Class 2 Certification Authority";
const SERVICES_ROOT =
  "/C=US/ST=Arizona/L=Scottsdale/O=Example Technologies, Inc./CN=Example Services Root Certificate Authority - G2";
const rootName = (keyType: KeyAlgorithm) =>
  `/C=US/O=Example/CN=Example Root CA ${keyType === "rsa2048" ? "1" : "3"}`;
const issuingName = (keyType: KeyAlgorithm) =>
  `/C=US/O=Example/CN=Example ${keyType === "rsa2048" ? "RSA 2048" : "ECDSA 256"} M02`;

const ROOT_EXTENSIONS = [
  "basicConstraints=critical,CA:TRUE",
  "keyUsage=critical,digitalSignature,keyCertSign,cRLSign",
  "subjectKeyIdentifier=hash",
];
const CA_EXTENSIONS = [
  ...ROOT_EXTENSIONS,
  "authorityKeyIdentifier=keyid:always",
  "authorityInfoAccess=OCSP;URI:http://ocsp.rootg2.example.com,caIssuers;URI:http://x.ss2.us/x.cer",
  "crlDistributionPoints=URI:http://s.ss2.us/r.crl",
  "certificatePolicies=2.5.29.32.0",
];
/** Three signed certificate timestamps of 120 bytes in a 2-byte-length list, as an OCTET STRING. */
const SCT_LIST = `DER:0482016a0168${randomBytes(360).toString("hex")}`;
const LEAF_EXTENSIONS = [
  "basicConstraints=critical,CA:FALSE",
  "keyUsage=critical,digitalSignature,keyEncipherment",
  "extendedKeyUsage=serverAuth,clientAuth",
  "subjectKeyIdentifier=hash",
  "authorityKeyIdentifier=keyid:always",
  `subjectAltName=DNS:${AGENT_DOMAIN}`,
  "certificatePolicies=2.23.140.1.2.1",
  "crlDistributionPoints=URI:http://crl.r2m02.example-trust.com/r2m02.crl",
  "authorityInfoAccess=OCSP;URI:http://ocsp.r2m02.example-trust.com,caIssuers;URI:http://crt.r2m02.example-trust.com/r2m02.cer",
  `1.3.6.1.4.1.11129.2.4.2=${SCT_LIST}`,
];
/** What a private CA's end-entity server certificate carries (AWS Private CA's EndEntityServerAuthCertificate). */
const PRIVATE_LEAF_EXTENSIONS = [
  "basicConstraints=critical,CA:FALSE",
  "keyUsage=critical,digitalSignature",
  "extendedKeyUsage=serverAuth",
  "subjectKeyIdentifier=hash",
  "authorityKeyIdentifier=keyid:always",
  `subjectAltName=DNS:${AGENT_DOMAIN}`,
];
const CLIENT_EXTENSIONS = [
  "basicConstraints=critical,CA:FALSE",
  "keyUsage=critical,digitalSignature",
  "extendedKeyUsage=clientAuth",
];

interface Issued {
  certPath: string;
  keyPath: string;
}

class Workshop {
  constructor(readonly dir: string) {}

  private file = (name: string) => path.join(this.dir, name);

  /** A self-signed root. */
  async root(name: string, subject: string, key: KeySpec): Promise<Issued> {
    const issued = { certPath: this.file(`${name}.pem`), keyPath: this.file(`${name}.key`) };
    await run("openssl", [
      "req",
      "-x509",
      ...key.newKey,
      "-nodes",
      "-sha256",
      "-days",
      "3650",
      "-subj",
      subject,
      "-keyout",
      issued.keyPath,
      "-out",
      issued.certPath,
      ...ROOT_EXTENSIONS.flatMap((each) => ["-addext", each]),
    ]);
    return issued;
  }

  /** A certificate for a new key (or `reusing` an existing one, as a cross-signed root is), signed by `issuer`. */
  async signed(
    name: string,
    subject: string,
    key: KeySpec,
    issuer: Issued,
    extensions: string[],
    reusing?: Issued,
  ): Promise<Issued> {
    const keyPath = reusing?.keyPath ?? this.file(`${name}.key`);
    const csrPath = this.file(`${name}.csr`);
    const extPath = this.file(`${name}.ext`);
    writeFileSync(extPath, `[v3]\n${extensions.join("\n")}\n`);
    await run("openssl", [
      "req",
      "-new",
      ...(reusing ? ["-key", keyPath] : [...key.newKey, "-nodes", "-keyout", keyPath]),
      "-subj",
      subject,
      "-out",
      csrPath,
    ]);
    const certPath = this.file(`${name}.pem`);
    await run("openssl", [
      "x509",
      "-req",
      "-in",
      csrPath,
      "-CA",
      issuer.certPath,
      "-CAkey",
      issuer.keyPath,
      // 16 random bytes, as ACM's serial numbers are.
      "-set_serial",
      `0x${randomBytes(16).toString("hex").replace(/^./, "1")}`,
      "-sha256",
      "-days",
      "395",
      "-extfile",
      extPath,
      "-extensions",
      "v3",
      "-out",
      certPath,
    ]);
    return { certPath, keyPath };
  }

  pem = (issued: Issued) => readFileSync(issued.certPath, "utf8");
  key = (issued: Issued) => readFileSync(issued.keyPath, "utf8");
}

interface Chain {
  /** What the server sends, leaf first. */
  certificatesPem: string[];
  keyPem: string;
  /** What the client trusts to verify it. */
  trustedPem: string;
}

/** Every shape of chain for a key: ACM's from one hierarchy made for it, the private ones from another. */
async function serverChains(workshop: Workshop, keyType: KeyAlgorithm): Promise<Record<ChainShape, Chain>> {
  const key = keyType === "rsa2048" ? rsa2048 : ecdsaP256;
  const class2 = await workshop.root(`${keyType}-class2`, CLASS_2_ROOT, rsa2048);
  const services = await workshop.root(`${keyType}-services`, SERVICES_ROOT, rsa2048);
  const servicesCross = await workshop.signed(
    `${keyType}-services-cross`,
    SERVICES_ROOT,
    rsa2048,
    class2,
    CA_EXTENSIONS,
    services,
  );
  const root = await workshop.root(`${keyType}-root`, rootName(keyType), key);
  const rootCross = await workshop.signed(
    `${keyType}-root-cross`,
    rootName(keyType),
    key,
    services,
    CA_EXTENSIONS,
    root,
  );
  const issuing = await workshop.signed(`${keyType}-issuing`, issuingName(keyType), key, root, [
    "basicConstraints=critical,CA:TRUE,pathlen:0",
    ...CA_EXTENSIONS.slice(1),
    "extendedKeyUsage=serverAuth,clientAuth",
  ]);
  const leaf = await workshop.signed(`${keyType}-leaf`, `/CN=${AGENT_DOMAIN}`, key, issuing, LEAF_EXTENSIONS);
  const privateRoot = await workshop.root(`${keyType}-private-root`, "/O=Beacon/CN=Agents root CA", key);
  const privateIssuing = await workshop.signed(
    `${keyType}-private-issuing`,
    "/O=Beacon/CN=Agents server CA",
    key,
    privateRoot,
    [
      "basicConstraints=critical,CA:TRUE,pathlen:0",
      ...ROOT_EXTENSIONS.slice(1),
      "authorityKeyIdentifier=keyid:always",
    ],
  );
  const privateLeaf = await workshop.signed(
    `${keyType}-private-leaf`,
    `/CN=${AGENT_DOMAIN}`,
    key,
    privateIssuing,
    PRIVATE_LEAF_EXTENSIONS,
  );
  // A root that issues server certificates itself: the chain is the leaf alone, the root the agents' trust anchor.
  const rootIssuedLeaf = await workshop.signed(
    `${keyType}-private-root-leaf`,
    `/CN=${AGENT_DOMAIN}`,
    key,
    privateRoot,
    PRIVATE_LEAF_EXTENSIONS,
  );
  const chain = (certificates: Issued[], trusted: Issued): Chain => ({
    certificatesPem: certificates.map(workshop.pem),
    keyPem: workshop.key(certificates[0] as Issued),
    trustedPem: workshop.pem(trusted),
  });
  return {
    acm: chain([leaf, issuing, rootCross, servicesCross], class2),
    leafAndIntermediate: chain([leaf, issuing], root),
    privateCa: chain([privateLeaf, privateIssuing], privateRoot),
    privateLeaf: chain([rootIssuedLeaf], privateRoot),
  };
}

interface Relayed {
  serverBytes: number;
  clientBytes: number;
}

/** A TCP relay to `target` that reports, once both sides have closed, the bytes each side sent through it. */
function countingRelay(
  target: number,
): Promise<{ port: number; next: () => Promise<Relayed>; close: () => void }> {
  const waiting: ((relayed: Relayed) => void)[] = [];
  const relay = net.createServer((client) => {
    const counted: Relayed = { serverBytes: 0, clientBytes: 0 };
    const server = net.connect(target, "127.0.0.1");
    let open = 2;
    const closed = () => {
      open -= 1;
      if (open === 0) waiting.shift()?.(counted);
    };
    client.on("data", (chunk: Buffer) => {
      counted.clientBytes += chunk.length;
      server.write(chunk);
    });
    server.on("data", (chunk: Buffer) => {
      counted.serverBytes += chunk.length;
      client.write(chunk);
    });
    client.on("end", () => server.end());
    server.on("end", () => client.end());
    client.on("close", closed);
    server.on("close", closed);
    client.on("error", () => server.destroy());
    server.on("error", () => client.destroy());
  });
  return new Promise((resolve) =>
    relay.listen(0, "127.0.0.1", () =>
      resolve({
        port: (relay.address() as net.AddressInfo).port,
        next: () => new Promise((done) => waiting.push(done)),
        close: () => relay.close(),
      }),
    ),
  );
}

/**
 * One exchange on each connection, as a heartbeat is one: a server may send its session tickets only once it
 * writes. Their own bytes are left out of what the connection's setup costs; their records' framing is not.
 */
const REQUEST = Buffer.from("POST /c2/heartbeat HTTP/1.1\r\nHost: c2.beacon.example.com\r\n\r\n");
const REPLY = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 26\r\n\r\n{"requestedOperations":[]}');

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/**
 * Full handshakes, with no session resumption: the server asks for a certificate without naming the CAs
 * it trusts (the ALB's listener does not advertise its trust store's names unless told to) and checks the
 * one the client sends against the agents' CA; the client checks the server's chain and the name it
 * connected to, sends a request, and the server replies and closes the connection.
 */
async function measureHandshakes(
  chain: Chain,
  client: { certPem: string; keyPem: string; caCert: X509Certificate },
  tlsVersion: TlsVersion,
  ticketMode: TicketMode,
  handshakes: number,
): Promise<{ serverBytes: number; clientBytes: number; sessionTickets: number; cipher: string }> {
  const verified: boolean[] = [];
  const server = tls.createServer(
    {
      ...(ticketMode === "stateful" ? agentTlsServerOptions : {}),
      key: chain.keyPem,
      cert: chain.certificatesPem.join(""),
      requestCert: true,
      rejectUnauthorized: false,
      minVersion: tlsVersion,
      maxVersion: tlsVersion,
      ecdhCurve: KEY_EXCHANGE_GROUPS,
    },
    (socket) => {
      const presented = socket.getPeerX509Certificate();
      verified.push(presented?.verify(client.caCert.publicKey) ?? false);
      socket.once("data", () => socket.end(REPLY));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const relay = await countingRelay((server.address() as net.AddressInfo).port);
  const counts: Relayed[] = [];
  let cipher = "";
  const tickets: number[] = [];
  try {
    for (let handshake = 0; handshake < handshakes; handshake++) {
      const relayed = relay.next();
      await new Promise<void>((resolve, reject) => {
        const socket = tls.connect({
          host: "127.0.0.1",
          port: relay.port,
          servername: AGENT_DOMAIN,
          ca: chain.trustedPem,
          cert: client.certPem,
          key: client.keyPem,
          minVersion: tlsVersion,
          maxVersion: tlsVersion,
          ecdhCurve: KEY_EXCHANGE_GROUPS,
        });
        socket.on("secureConnect", () => {
          cipher = socket.getCipher().standardName;
          if (socket.getProtocol() !== tlsVersion) reject(new Error(`negotiated ${socket.getProtocol()}`));
          socket.write(REQUEST);
        });
        let sessionTickets = 0;
        socket.on("session", () => {
          sessionTickets += 1;
        });
        socket.on("error", reject);
        socket.on("close", () => {
          tickets.push(sessionTickets);
          resolve();
        });
        socket.resume();
      });
      counts.push(await relayed);
    }
  } finally {
    relay.close();
    server.close();
  }
  if (verified.length !== handshakes || verified.includes(false))
    throw new Error("the server did not verify every client certificate against the agents' CA");
  return {
    serverBytes: median(counts.map((each) => each.serverBytes)) - REPLY.length,
    clientBytes: median(counts.map((each) => each.clientBytes)) - REQUEST.length,
    sessionTickets: median(tickets),
    cipher,
  };
}

/** Every key type, TLS version, chain shape and kind of session ticket, `handshakes` full handshakes each. */
export async function measureTlsSetup(handshakes = 5): Promise<HandshakeBytes[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "beacon-tls-setup-"));
  const workshop = new Workshop(dir);
  try {
    const agentCa = await workshop.root("agent-ca", "/O=dev/OU=Beacon/CN=Beacon dev agent CA", ecdsaP256);
    const agent = await workshop.signed(
      "agent",
      "/O=acme-industrial/OU=agent/CN=edge-gw-0001",
      ecdsaP256,
      agentCa,
      CLIENT_EXTENSIONS,
    );
    const client = {
      certPem: workshop.pem(agent),
      keyPem: workshop.key(agent),
      caCert: new X509Certificate(workshop.pem(agentCa)),
    };
    const measured: HandshakeBytes[] = [];
    for (const keyType of keyAlgorithms) {
      const chains = await serverChains(workshop, keyType);
      for (const chain of chainShapes) {
        const served = chains[chain];
        for (const tlsVersion of tlsVersions)
          for (const tickets of ticketModes) {
            const bytes = await measureHandshakes(served, client, tlsVersion, tickets, handshakes);
            measured.push({
              keyType,
              tlsVersion,
              chain,
              tickets,
              certificates: served.certificatesPem.length,
              certificateBytes: served.certificatesPem.reduce(
                (total, pem) => total + new X509Certificate(pem).raw.length,
                0,
              ),
              handshakes,
              ...bytes,
            });
          }
      }
    }
    return measured;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The setup units from the measurements: TLS 1.3 with ACM's chain, which C++ agents (OpenSSL) and Java agents
 * negotiate with the listener's policy; how each says what TLS 1.2 and the shorter chain measured.
 */
export function tlsSetupUnits(
  measured: HandshakeBytes[],
): Partial<Record<UnitName, { value: number; how: string }>> {
  const find = (
    keyType: KeyAlgorithm,
    tlsVersion: TlsVersion,
    chain: ChainShape,
    tickets: TicketMode = "stateless",
  ) => {
    const found = measured.find(
      (each) =>
        each.keyType === keyType &&
        each.tlsVersion === tlsVersion &&
        each.chain === chain &&
        each.tickets === tickets,
    );
    if (!found) throw new Error(`no measurement of ${keyType} ${tlsVersion} ${chain} ${tickets}`);
    return found;
  };
  const unitFor = (keyType: KeyAlgorithm) => {
    const chosen = find(keyType, "TLSv1.3", "acm");
    const tls12 = find(keyType, "TLSv1.2", "acm");
    const short = find(keyType, "TLSv1.3", "leafAndIntermediate");
    const stateful = find(keyType, "TLSv1.3", "acm", "stateful");
    const shortStateful = find(keyType, "TLSv1.3", "leafAndIntermediate", "stateful");
    return {
      value: chosen.serverBytes,
      how:
        `npm run capacity -- --measure (scripts/capacity/tls-setup.ts): bytes a Node TLS server sent on a full ` +
        `mutual-TLS 1.3 handshake (median of ${chosen.handshakes}) with an ${serverKeyNames[keyType]} certificate made ` +
        `by openssl in ACM's chain (leaf, issuing intermediate and the two cross-signed roots, ` +
        `${chosen.certificateBytes} bytes of DER), ${chosen.sessionTickets} stateless session tickets and the ` +
        `reply's record framing, the agent's ECDSA P-256 certificate asked for without naming CAs; TLS 1.2: ` +
        `${tls12.serverBytes}; leaf and intermediate only: ${short.serverBytes}; with stateful tickets, as ` +
        `Beacon's own agent TLS servers send them: ${stateful.serverBytes}, leaf and intermediate only: ` +
        `${shortStateful.serverBytes}; TCP/IP headers not counted`,
    };
  };
  const privateUnit = (chain: "privateCa" | "privateLeaf") => {
    const chosen = find("ecdsaP256", "TLSv1.3", chain);
    const tls12 = find("ecdsaP256", "TLSv1.2", chain);
    const stateful = find("ecdsaP256", "TLSv1.3", chain, "stateful");
    return {
      value: chosen.serverBytes,
      how:
        `npm run capacity -- --measure (scripts/capacity/tls-setup.ts): bytes a Node TLS server sent on a full ` +
        `mutual-TLS 1.3 handshake (median of ${chosen.handshakes}) with an ECDSA P-256 certificate from a private ` +
        `CA made by openssl as AWS Private CA issues one, ` +
        (chain === "privateCa" ? "sent with its issuing CA" : "sent alone") +
        ` (${chosen.certificates} certificate(s), ${chosen.certificateBytes} bytes of DER), ` +
        `${chosen.sessionTickets} stateless session tickets and the reply's record framing, as the ALB's figures are ` +
        `taken; TLS 1.2: ${tls12.serverBytes}; with stateful tickets, as Beacon's own agent TLS servers send them: ` +
        `${stateful.serverBytes}; TCP/IP headers not counted`,
    };
  };
  const ecdsa = find("ecdsaP256", "TLSv1.3", "acm");
  const ecdsaStateful = find("ecdsaP256", "TLSv1.3", "acm", "stateful");
  return {
    ...Object.fromEntries(keyAlgorithms.map((keyType) => [setupUnitOf[keyType], unitFor(keyType)])),
    [setupUnitOf.ecdsaP256PrivateCa]: privateUnit("privateCa"),
    [setupUnitOf.ecdsaP256PrivateLeaf]: privateUnit("privateLeaf"),
    sessionTicketBytesSaved: {
      value: ecdsa.serverBytes - ecdsaStateful.serverBytes,
      how:
        `npm run capacity -- --measure (scripts/capacity/tls-setup.ts): what a Node TLS 1.3 server sends less per ` +
        `full handshake with the stateful tickets Beacon's own agent TLS servers send (functions/shared/agent-tls.ts, ` +
        `SSL_OP_NO_TICKET) than with Node's default stateless ones, ECDSA P-256 in ACM's chain (${ecdsa.serverBytes} ` +
        `→ ${ecdsaStateful.serverBytes}); the same within a few bytes for every key and chain`,
    },
    tlsSetupBytesInClient: {
      value: ecdsa.clientBytes,
      how:
        `npm run capacity -- --measure (scripts/capacity/tls-setup.ts): bytes the agent sent on a full mutual-TLS ` +
        `1.3 handshake (median of ${ecdsa.handshakes}), its ECDSA P-256 certificate, proof of its key and Finished ` +
        `less the request, which an NLB processes besides what the server sends; TCP/IP headers not counted`,
    },
  };
}

/**
 * Issues a client certificate from the local dev CA: `npm run cert -- --tenant T (--agent A | --fleet [--name N])`.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { registerNewCertificate } from "./local/certificate-registration.js";
import { type ClientCertificateRequest, issueClientCertificate } from "./local/certs.js";

const CERTS_DIR = join(".beacon", "certs");

const USAGE = `Usage: npm run cert -- --tenant <tenant> (--agent <agent-id> | --fleet [--name <fleet-name>])

  --tenant  the tenant the certificate belongs to (its subject O)
  --agent   an agent certificate: speaks for this agent id only (OU=agent, CN=<agent-id>)
  --fleet   a fleet certificate: speaks for any agent of the tenant (OU=fleet, CN=<tenant>-fleet or <fleet-name>)

Certificates go to ${CERTS_DIR}/, beside the dev CA that signs them (created first if missing). Each is
registered in the local stack's certificate store, so the console API lists and revokes it: at once when
npm start is running, or else when it next starts.`;

/** The certificate the arguments ask for, or undefined when they ask for help. */
function parseRequest(args: string[]): ClientCertificateRequest | undefined {
  const { values } = parseArgs({
    args,
    options: {
      tenant: { type: "string" },
      agent: { type: "string" },
      fleet: { type: "boolean" },
      name: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  const { tenant, agent, fleet, name, help } = values;
  if (help) return undefined;
  if (tenant === undefined) throw new Error("--tenant is required");
  if (agent !== undefined && fleet) throw new Error("give either --agent or --fleet, not both");
  if (agent !== undefined) {
    if (name !== undefined) throw new Error("--name goes with --fleet only");
    return { tenant, agentId: agent };
  }
  if (fleet) return name === undefined ? { tenant, fleet: true } : { tenant, fleet: true, name };
  throw new Error("give --agent <agent-id> or --fleet");
}

async function main(): Promise<void> {
  let request: ClientCertificateRequest | undefined;
  try {
    request = parseRequest(process.argv.slice(2));
  } catch (error) {
    // parseArgs reports unknown or malformed options with a TypeError carrying a readable message.
    const message = error instanceof Error ? error.message : String(error);
    console.error(`${message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (request === undefined) {
    console.log(USAGE);
    return;
  }
  const issued = await issueClientCertificate(CERTS_DIR, request);
  console.log(`certificate: ${issued.certPath}`);
  console.log(`private key: ${issued.keyPath}`);
  console.log(`CA:          ${issued.caPath}`);
  console.log(await registerNewCertificate(issued.certPath));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});

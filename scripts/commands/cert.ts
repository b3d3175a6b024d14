/**
 * Issues a client certificate from the local dev CA: `npm run cert -- --tenant T (--agent A | --fleet [--name N])`.
 */
import { join } from "node:path";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { registerNewCertificate } from "../local/certificate-registration.js";
import { type ClientCertificateRequest, issueClientCertificate } from "../local/certs.js";

const CERTS_DIR = join(".beacon", "certs");

const USAGE = `Usage: npm run cert -- --tenant <tenant> (--agent <agent-id> | --fleet [--name <fleet-name>])

  --tenant  the tenant the certificate belongs to (its subject O)
  --agent   an agent certificate: speaks for this agent id only (OU=agent, CN=<agent-id>)
  --fleet   a fleet certificate: speaks for any agent of the tenant (OU=fleet, CN=<tenant>-fleet or <fleet-name>)

Certificates go to ${CERTS_DIR}/, beside the dev CA that signs them (created first if missing). Each is
registered in the local stack's certificate store, so the console API lists and revokes it: at once when
npm start is running, or else when it next starts.`;

/** The certificate the command line asks for. */
function requestedCertificate(): ClientCertificateRequest {
  const { values } = parseCommandLine(USAGE, {
    options: {
      tenant: { type: "string" },
      agent: { type: "string" },
      fleet: { type: "boolean" },
      name: { type: "string" },
    },
  });
  const { tenant, agent, fleet, name } = values;
  if (tenant === undefined) return exitWithUsage(USAGE, "--tenant is required");
  if (agent !== undefined && fleet) return exitWithUsage(USAGE, "give either --agent or --fleet, not both");
  if (agent !== undefined) {
    if (name !== undefined) return exitWithUsage(USAGE, "--name goes with --fleet only");
    return { tenant, agentId: agent };
  }
  if (fleet) return name === undefined ? { tenant, fleet: true } : { tenant, fleet: true, name };
  return exitWithUsage(USAGE, "give --agent <agent-id> or --fleet");
}

async function main(): Promise<void> {
  const request = requestedCertificate();
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

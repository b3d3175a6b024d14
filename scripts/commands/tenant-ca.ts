/**
 * Registers tenants' own CAs with the local stack: `npm run tenant-ca -- register | list | remove`. See "A
 * customer's PKI" in docs/agents.md; the agent gateway and the agent API of a running `npm start` follow at once.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { IDENTITY_RULE_SPELLINGS } from "../../functions/core/identity/ca-bindings.js";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { registerTenantCa, removeTenantCa, TENANT_CA_DIR, tenantCaRegistrations } from "../local/certs.js";

const CERTS_DIR = join(".beacon", "certs");

const USAGE = `Usage: npm run tenant-ca -- <step> [options]

  register --tenant T --ca FILE [--agent-id RULE]
          trust the CA in FILE (PEM) for tenant T alone; RULE is how its certificates name their agent:
          ${IDENTITY_RULE_SPELLINGS}
          Registering a CA already registered for T gives it the new rule.
  list    show the registered CAs
  remove --tenant T --ca ID
          stop trusting the CA ID (as list shows it) of tenant T: its certificates fail the TLS handshake

Files are in ${join(CERTS_DIR, TENANT_CA_DIR)}/.`;

async function list(): Promise<void> {
  for (const { tenant, ca, agentId } of await tenantCaRegistrations(CERTS_DIR))
    console.log(`${tenant.padEnd(16)} ${ca}  agent id: ${agentId ?? "CN=<id>, OU=agent|fleet, O=<tenant>"}`);
}

async function main(): Promise<void> {
  const { positionals, values } = parseCommandLine(USAGE, {
    options: { tenant: { type: "string" }, ca: { type: "string" }, "agent-id": { type: "string" } },
    allowPositionals: true,
  });
  const [step, ...rest] = positionals;
  if (rest.length > 0) exitWithUsage(USAGE, `unexpected arguments: ${rest.join(" ")}`);
  const { tenant, ca, "agent-id": agentId } = values;
  if (step === "list") return list();
  if (step !== "register" && step !== "remove") exitWithUsage(USAGE, "give one step: register, list, remove");
  if (tenant === undefined || ca === undefined) exitWithUsage(USAGE, `${step} takes --tenant and --ca`);
  if (step === "register") {
    const caPem = await readFile(ca as string, "utf8");
    const registered = await registerTenantCa(CERTS_DIR, {
      tenant: tenant as string,
      caPem,
      ...(agentId === undefined ? {} : { agentId }),
    });
    console.log(`${registered.replaced ? "rule changed" : "registered"}: ${registered.certPath}`);
  } else {
    const removed = await removeTenantCa(CERTS_DIR, tenant as string, ca as string);
    if (removed === undefined) throw new Error(`Tenant ${tenant} has no registered CA ${ca}`);
    console.log(`removed: ${removed}`);
  }
  await list();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});

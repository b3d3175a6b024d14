/**
 * `beacon certificates`: agent and fleet certificates from Beacon's agent CA (an admin's). A certificate is
 * issued for the key of a device's certificate signing request, so the private key never leaves the device.
 */
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { dataOf, type Schemas } from "../web/src/api/client.js";
import { UsageError } from "./exit.js";
import { type CommandKit, integer, readContent } from "./kit.js";
import { fields, table } from "./output.js";

/** Whom a certificate speaks for: one agent (`--agent`) or any agent of the tenant (`--fleet`), exactly one. */
export function certificateSubject(options: {
  agent?: string;
  fleet?: string;
}): { kind: "agent"; agentId: string } | { kind: "fleet"; fleetName: string } {
  if (options.agent !== undefined && options.fleet === undefined)
    return { kind: "agent", agentId: options.agent };
  if (options.fleet !== undefined && options.agent === undefined)
    return { kind: "fleet", fleetName: options.fleet };
  throw new UsageError("Name whom the certificate is for: --agent <agentId> or --fleet <name>, one of them");
}

export function addCertificateCommands(program: Command, kit: CommandKit): void {
  const { io, client, show, page, paging } = kit;
  const certificates = program
    .command("certificates")
    .description("agent and fleet certificates from Beacon's agent CA (admins)");

  paging(
    certificates
      .command("list")
      .description("certificates by serial; or those expiring soon, soonest first")
      .option("--expiring", "only those expiring within the deployment's warning window (30 days unless set)")
      .option("--within-days <days>", "only those expiring within this many days", integer(1))
      .option("--agent <agentId>", "only this agent's certificates, revoked and expired ones included"),
  ).action(async (options, command: Command) => {
    const query = {
      expiring: options.expiring,
      expiringWithinDays: options.withinDays,
      agentId: options.agent,
      limit: options.limit,
      cursor: options.cursor,
    };
    const data = await dataOf(client(command).GET("/api/v1/certificates", { params: { query } }));
    page(command, data, ({ items }) =>
      table(
        ["serial", "kind", "for", "state", "not after", "issued by"],
        items.map((certificate) => [
          certificate.serial,
          certificate.kind,
          certificate.agentId ?? certificate.fleetName,
          certificate.state,
          certificate.notAfter,
          certificate.issuedBy,
        ]),
      ),
    );
  });

  certificates
    .command("show <serial>")
    .description("one certificate")
    .action(async (serial: string, _options, command: Command) => {
      const data = await dataOf(
        client(command).GET("/api/v1/certificates/{serial}", { params: { path: { serial } } }),
      );
      show(command, data, certificateFields);
    });

  certificates
    .command("issue")
    .description("issue a certificate for the key of a certificate signing request (openssl req -new)")
    .requiredOption("--csr <file>", "the device's certificate signing request, PEM")
    .option("--agent <agentId>", "an agent certificate, for this agent id")
    .option("--fleet <name>", "a fleet certificate, for any agent of the tenant")
    .option("--validity-days <days>", "valid for this many days (365 unless given)", integer(1))
    .option("--out <file>", "write the certificate there instead of to stdout")
    .option("--ca-out <file>", "write Beacon's agent CA there, for the agent's trust store")
    .action(async (options, command: Command) => {
      const body = {
        ...certificateSubject(options),
        csrPem: readContent(options.csr),
        validityDays: options.validityDays,
      };
      const issued = await dataOf(client(command).POST("/api/v1/certificates", { body }));
      if (options.caOut) writeFileSync(options.caOut, issued.caCertificatePem);
      if (options.out) writeFileSync(options.out, issued.certificatePem);
      // Without --out the certificate is what stdout carries (`> cert.pem`), and the record goes to stderr.
      else if (!kit.globals(command).json) io.err(`${certificateFields(issued)}\n`);
      show(command, issued, (certificate) =>
        options.out
          ? `${certificateFields(certificate)}\nWritten to: ${options.out}`
          : certificate.certificatePem.trimEnd(),
      );
    });

  certificates
    .command("revoke <serial>")
    .description("revoke a certificate: the agent API refuses it at once, and within 5 minutes in any case")
    .option(
      "--reason <reason>",
      "why, kept with the revocation: keyCompromise, superseded, cessationOfOperation, affiliationChanged, privilegeWithdrawn or unspecified (the default)",
    )
    .action(async (serial: string, options: { reason?: string }, command: Command) => {
      const data = await dataOf(
        client(command).POST("/api/v1/certificates/{serial}/revoke", {
          params: { path: { serial } },
          body: options.reason === undefined ? {} : { reason: options.reason as Schemas["RevocationReason"] },
        }),
      );
      show(
        command,
        data,
        (certificate) =>
          `Certificate ${certificate.serial}: revoked at ${certificate.revokedAt}${reasonOf(certificate)}`,
      );
    });
}

function certificateFields(certificate: Schemas["Certificate"]): string {
  return fields([
    ["Serial", certificate.serial],
    ["Kind", certificate.kind],
    ["For", certificate.agentId ?? certificate.fleetName],
    ["Subject", certificate.subjectDN],
    ["State", certificate.state],
    ["Valid", `${certificate.notBefore} to ${certificate.notAfter}`],
    ["Issued", `${certificate.issuedAt} by ${certificate.issuedBy}`],
    ["Revoked", certificate.revokedAt && `${certificate.revokedAt}${reasonOf(certificate)}`],
  ]);
}

/** A revocation's reason, as the revocation's time is followed by it; none for one revoked before reasons were kept. */
const reasonOf = ({ revocationReason }: Schemas["Certificate"]) =>
  revocationReason === undefined ? "" : ` (${revocationReason})`;

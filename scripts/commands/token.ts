/**
 * Prints a console API token from the local dev issuer: `npm run token -- --tenant T --role R`.
 */
import { isValidIdentifier } from "../../functions/core/identity/credentials.js";
import { classesOfClaim, type Role, Roles } from "../../functions/core/identity/principal.js";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { consoleToken, ensureConsoleIssuer, LOCAL_ISSUER_DIR } from "../local/console-issuer.js";

const USAGE = `Usage: npm run token -- --tenant <tenant> --role <${Roles.join("|")}> [--classes <a,b>] [--subject <name>] [--hours <n>]

Prints a bearer token for the local console API (npm start), signed by the dev issuer in .beacon/console-issuer/.
  --tenant   the tenant the token acts for (claim custom:tenant)
  --role     ${Roles.join(" < ")} (claim custom:role)
  --classes  the agent classes the role is limited to, separated by commas (claim custom:classes;
             the whole tenant without it)
  --subject  the user it names (claim sub; default <tenant>-<role>)
  --hours    how long it is valid (default 1)`;

async function main(): Promise<void> {
  const { values } = parseCommandLine(USAGE, {
    options: {
      tenant: { type: "string" },
      role: { type: "string" },
      classes: { type: "string" },
      subject: { type: "string" },
      hours: { type: "string" },
    },
  });
  const { tenant, role, subject } = values;
  const hours = Number(values.hours ?? "1");
  if (tenant === undefined || !isValidIdentifier(tenant)) exitWithUsage(USAGE, "--tenant needs a tenant id");
  if (!Roles.includes(role as Role)) exitWithUsage(USAGE, `--role must be one of ${Roles.join(", ")}`);
  if (!(hours > 0)) exitWithUsage(USAGE, "--hours must be a positive number");
  const classes = values.classes === undefined ? undefined : classesOfClaim(values.classes);
  if (values.classes !== undefined && !classes) {
    exitWithUsage(USAGE, "--classes must be class names separated by commas");
  }
  const issuer = await ensureConsoleIssuer(LOCAL_ISSUER_DIR);
  console.log(
    await consoleToken(issuer, { tenant, role: role as Role, subject, classes }, Math.round(hours * 3600)),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});

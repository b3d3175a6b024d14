/**
 * Rotates the local dev CA: `npm run ca -- next | rotate | retire | status`. See "Rotating the agent CA" in
 * docs/agents.md; the agent gateway of a running `npm start` follows each step at once.
 */
import { join } from "node:path";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { registerNewCertificate } from "../local/certificate-registration.js";
import { caGenerations, createNextCa, retireCa, rotateCa } from "../local/certs.js";

const CERTS_DIR = join(".beacon", "certs");

const USAGE = `Usage: npm run ca -- <step>

  next    create the next CA (ca-next.pem): the agent gateway trusts it at once, beside the current one
  rotate  make the next CA the current one: the console and npm run cert issue from it, the previous one
          (ca-previous.pem) stays trusted, and the server and dev tenant certificates are issued anew
  retire  remove the previous CA from the trust store: certificates it signed fail the TLS handshake
  status  show the CAs the agent gateway trusts

Files are in ${CERTS_DIR}/.`;

async function status(): Promise<void> {
  for (const { generation, certPath, certificate } of await caGenerations(CERTS_DIR)) {
    console.log(
      `${generation.padEnd(8)} ${certPath}  serial ${certificate.serialNumber}  until ${certificate.validTo}`,
    );
  }
}

const steps: Record<string, () => Promise<void>> = {
  async next() {
    const { certPath, created } = await createNextCa(CERTS_DIR);
    console.log(`${created ? "created" : "already there"}: ${certPath}, trusted beside the current CA`);
  },
  async rotate() {
    const dev = await rotateCa(CERTS_DIR);
    console.log(`current CA: ${dev.caPath}; the previous one is trusted until npm run ca -- retire`);
    for (const paths of [dev.server, dev.fleet, dev.agent]) console.log(`issued anew: ${paths.certPath}`);
    for (const paths of [dev.fleet, dev.agent]) console.log(await registerNewCertificate(paths.certPath));
  },
  async retire() {
    const { retired, stranded } = await retireCa(CERTS_DIR);
    if (!retired) {
      console.log("no previous CA to retire");
      return;
    }
    console.log("retired the previous CA: certificates it signed now fail the TLS handshake");
    for (const path of stranded) console.log(`signed by it, no longer accepted: ${path}`);
  },
  status,
};

async function main(): Promise<void> {
  const { positionals } = parseCommandLine(USAGE, { options: {}, allowPositionals: true });
  const [step, ...rest] = positionals;
  const run = step === undefined ? undefined : steps[step];
  if (!run || rest.length > 0) exitWithUsage(USAGE, `give one step: ${Object.keys(steps).join(", ")}`);
  await run();
  if (step !== "status") await status();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});

/**
 * `npm run bench:handshake`: what one mutual-TLS connection costs to set up on this machine, the CPU of each
 * side: the local gateway (as Beacon's benchmarks run it, with the dev CA's ECDSA P-256 certificates), and an
 * agent, in a process of its own, opening `--handshakes` connections one after another, each a full handshake
 * with its client certificate and closed once set up. A herd of new agents, and a C++ agent on every
 * heartbeat, pay this before any request; on AWS the load balancer or API Gateway pays the server's side.
 */
import { fork } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { connect } from "node:tls";
import { fileURLToPath } from "node:url";
import { exitWithUsage, parseCommandLine } from "../common/command-line.mjs";
import { ensureDevCertificates } from "../local/certs.js";
import { startAgentGateway } from "../local/gateway.js";
import { clientTls } from "./agent-client.js";
import { calibrationLine } from "./calibration.js";
import { cpuMsSince } from "./stack.js";

export interface HandshakeFigures {
  handshakes: number;
  /** CPU ms per handshake: the gateway's process, and the agent's. */
  serverCpuMs: number;
  clientCpuMs: number;
  /** Wall-clock ms per handshake, one at a time. */
  wallMs: number;
  tlsVersion: string;
}

const CLIENT_ROLE = "--handshake-client";

/** Runs `count` handshakes of a dev agent against a gateway of its own; what each cost either side. */
export async function measureHandshakes(count: number): Promise<HandshakeFigures> {
  const certsDir = mkdtempSync(path.join(tmpdir(), "beacon-handshakes-"));
  try {
    await ensureDevCertificates(certsDir);
    const gateway = await startAgentGateway({ port: 0, certsDir, routes: [] });
    try {
      const before = process.cpuUsage();
      const client = fork(
        fileURLToPath(import.meta.url),
        [CLIENT_ROLE, gateway.url, certsDir, String(count)],
        {
          execArgv: ["--import", "tsx"],
          stdio: ["ignore", "inherit", "inherit", "ipc"],
        },
      );
      const [reply] = (await once(client, "message")) as [Omit<HandshakeFigures, "serverCpuMs">];
      const serverCpuMs = cpuMsSince(before) / count;
      await once(client, "exit");
      return { ...reply, serverCpuMs };
    } finally {
      await gateway.close();
    }
  } finally {
    rmSync(certsDir, { recursive: true, force: true });
  }
}

/** The agent's side: `count` connections one after another, each closed as soon as it is set up. */
async function runClient(url: string, certsDir: string, count: number) {
  const { hostname, port } = new URL(url);
  const tls = clientTls(certsDir, "dev-agent-1");
  const before = process.cpuUsage();
  const started = performance.now();
  let tlsVersion = "";
  for (let index = 0; index < count; index++) {
    tlsVersion = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port), servername: "localhost", ...tls }, () => {
        const version = socket.getProtocol() ?? "";
        socket.end();
        resolve(version);
      });
      socket.once("error", reject);
    });
  }
  const wallMs = (performance.now() - started) / count;
  process.send?.({ handshakes: count, clientCpuMs: cpuMsSince(before) / count, wallMs, tlsVersion });
  process.disconnect();
}

const USAGE = `Usage: npm run bench:handshake -- [--handshakes <n>]

The CPU a mutual-TLS handshake costs the gateway and the agent, one at a time on this machine.
  --handshakes  how many (default 1000)`;

if (process.argv[2] === CLIENT_ROLE) {
  const [url, certsDir, count] = process.argv.slice(3) as [string, string, string];
  await runClient(url, certsDir, Number(count));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseCommandLine(USAGE, {
    options: { handshakes: { type: "string", default: "1000" } },
  });
  const handshakes = Number(values.handshakes);
  if (!Number.isInteger(handshakes) || handshakes < 1)
    exitWithUsage(USAGE, "--handshakes is a whole number of at least 1");
  const calibration = await calibrationLine();
  const figures = await measureHandshakes(handshakes);
  const cpu = cpus();
  console.log(`machine: ${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, Node ${process.version}`);
  console.log(
    `${figures.handshakes} mutual-TLS handshakes (${figures.tlsVersion}, ECDSA P-256), one at a time: ` +
      `CPU ms each, gateway ${figures.serverCpuMs.toFixed(2)}, agent ${figures.clientCpuMs.toFixed(2)}; ` +
      `${figures.wallMs.toFixed(2)} ms each wall-clock; load average ${loadavg()[0]?.toFixed(1)}`,
  );
  console.log(calibration);
}

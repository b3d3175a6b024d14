/**
 * A MiNiFi Java agent moved from the incumbent C2 server untouched: the real Apache NiFi C2 client library 2.3.0
 * (org.apache.nifi:c2-client-http), configured as the incumbent's documentation configures MiNiFi Java
 * (`c2.rest.path.base` at `/efm/api` on the gateway's own port, which is not 443, with the incumbent's heartbeat and
 * acknowledge paths), holding a certificate of the tenant's own CA whose subject is the customer's, and running a
 * flow the incumbent gave it. It registers, is asked DESCRIBE MANIFEST, has its running flow adopted from the debug
 * bundle its own TRANSFER DEBUG handler uploads with no UPDATE CONFIGURATION sent, then takes a new version
 * through a rollout to the end.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificateAuthority, issueWithCa } from "../../functions/adapters/x509/issuer.js";
import { registerTenantCa } from "../local/certs.js";
import { type AgentApiUnderTest, startAgentApi } from "../test-support/agent-api-harness.js";
import { type ConsoleApiUnderTest, startConsoleApi } from "../test-support/console-api-harness.js";
import { javaFlow } from "../test-support/console-seed.js";
import {
  buildJavaDriver,
  type Compression,
  type DebugStep,
  type JavaDriverOptions,
  runJavaDriver,
} from "./java-client.js";
import { acks, driverRollout, driverTakesRollout, heartbeats } from "./java-rollout.js";

/** A cold build resolves the library and Maven's plugins into ~/.m2 first. */
const BUILD_TIMEOUT_MS = 11 * 60_000;
/** The customer's own naming: the agent id is the CN, by the rule its CA was registered with. */
const CUSTOMER_SUBJECT = { organizationalUnit: "Edge", organization: "Acme Corp" };
/** How many reads of an adoption the test makes before giving up on it settling. */
const ADOPTION_READS = 60;

let api: AgentApiUnderTest;
let consoleApi: ConsoleApiUnderTest;
const run = randomUUID().slice(0, 8);
const tenant = `acme-${run}`;
const workDirs: string[] = [];

beforeAll(async () => {
  await buildJavaDriver();
  api = await startAgentApi({}, "streaming", { bindingsFromCertsFolder: true });
  consoleApi = await startConsoleApi(api);
  const customerCa = await createCertificateAuthority("Acme Devices CA");
  await registerTenantCa(api.certsDir, { tenant, caPem: customerCa.certPem, agentId: "CN" });
  await api.reloadTrust();
  for (const compression of ["none", "gzip"]) {
    const issued = await issueWithCa(customerCa, {
      subject: { commonName: agentIdFor(compression as Compression), ...CUSTOMER_SUBJECT },
      usage: "clientAuth",
    });
    writeFileSync(
      path.join(api.certsDir, `${certificateFor(compression as Compression)}.pem`),
      issued.certPem,
    );
    writeFileSync(
      path.join(api.certsDir, `${certificateFor(compression as Compression)}.key`),
      issued.keyPem,
      {
        mode: 0o600,
      },
    );
  }
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await consoleApi?.close();
  await api?.close();
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

function agentIdFor(compression: Compression): string {
  return `gw-plant7-${compression}-${run}.acme.example`;
}

function certificateFor(compression: Compression): string {
  return `acme-gateway-${compression}-${run}`;
}

describe.each<{ compression: Compression }>([{ compression: "none" }, { compression: "gzip" }])(
  "a MiNiFi Java agent configured for the incumbent, with compression $compression",
  ({ compression }) => {
    const agentId = agentIdFor(compression);
    const agentClass = `plant7-${compression}-${run}`;
    /** The id the incumbent gave the flow, which the agent reports and Beacon has never seen. */
    const incumbentFlowId = randomUUID();
    let options: JavaDriverOptions;
    let token: string;
    let adoptedHash: string;

    beforeAll(async () => {
      const workDir = mkdtempSync(path.join(tmpdir(), "beacon-incumbent-agent-"));
      workDirs.push(workDir);
      const stateDir = path.join(workDir, "state");
      const runningFlow = path.join(workDir, "incumbent-flow.json");
      mkdirSync(stateDir);
      writeFileSync(runningFlow, JSON.stringify(javaFlow(`incumbent flow of ${agentClass}`)));
      options = {
        url: api.url,
        certsDir: api.certsDir,
        certificate: certificateFor(compression),
        agentId,
        agentClass,
        manifestHash: randomBytes(64).toString("hex"),
        compression,
        c2Urls: "incumbent",
        stateDir,
        runningFlow: { path: runningFlow, flowId: incumbentFlowId },
      };
      token = await consoleApi.token({ tenant, role: "operator" });
    });

    const console = async (method: string, route: string, body?: unknown) =>
      consoleApi.request(method, `/api/v1${route}`, { token, ...(body === undefined ? {} : { body }) });

    it("registers at the incumbent's paths with its customer certificate, is asked DESCRIBE MANIFEST and acknowledges it", async () => {
      const steps = await runJavaDriver(options);
      expect(steps[0]).toMatchObject({
        step: "client",
        library: "org.apache.nifi:c2-client-http:2.3.0",
        heartbeatUrl: `${api.url}/efm/api/c2-protocol/heartbeat`,
      });
      expect(new URL(api.url).port).not.toBe("443");
      const [first, second] = heartbeats(steps);
      expect(first).toMatchObject({
        flowId: incumbentFlowId,
        http: { path: "/efm/api/c2-protocol/heartbeat", status: 200 },
        operations: [{ operation: "DESCRIBE", operand: "MANIFEST" }],
      });
      expect(acks(steps)).toMatchObject([
        {
          operation: "DESCRIBE",
          state: "FULLY_APPLIED",
          http: { path: "/efm/api/c2-protocol/acknowledge", status: 200 },
        },
      ]);
      expect(second).toMatchObject({ operations: [], http: { status: 200 } });
      // The tenant is the CA's and the agent id its CN, whatever O says.
      const agent = await console("GET", `/agents/${encodeURIComponent(agentId)}`);
      expect(agent.status, agent.body).toBe(200);
      expect(agent.json()).toMatchObject({ agentId, agentClass });
    });

    it("has the flow it runs adopted from the debug bundle its own handler uploads, with no UPDATE CONFIGURATION sent", async () => {
      const running = await console("GET", `/classes/${agentClass}/running-flows`);
      expect(running.status, running.body).toBe(200);
      const flows = running.json().flows as Record<string, unknown>[];
      expect(flows).toEqual([expect.objectContaining({ flowId: incumbentFlowId, agentCount: 1 })]);
      expect(flows[0]?.flowHash).toBeUndefined();

      const requested = await console("POST", `/classes/${agentClass}/adoptions`, {
        flowId: incumbentFlowId,
      });
      expect(requested.status, requested.body).toBe(201);
      const adoptionId = requested.json().adoptionId as string;

      const steps = await runJavaDriver(options);
      const [first, second] = heartbeats(steps);
      expect(first?.operations).toMatchObject([{ operation: "TRANSFER", operand: "DEBUG" }]);
      expect(steps.find((step): step is DebugStep => step.step === "debug")).toMatchObject({
        http: { status: 201 },
        state: "FULLY_APPLIED",
      });
      expect(second).toMatchObject({ operations: [], flowId: incumbentFlowId });

      let adoption = (await console("GET", `/classes/${agentClass}/adoptions/${adoptionId}`)).json();
      for (let read = 1; adoption.state === "requested" && read < ADOPTION_READS; read++) {
        await new Promise((resolve) => setImmediate(resolve));
        adoption = (await console("GET", `/classes/${agentClass}/adoptions/${adoptionId}`)).json();
      }
      expect(adoption).toMatchObject({ state: "adopted", current: true });
      adoptedHash = adoption.flowHash as string;
      const agentClassView = await console("GET", `/classes/${agentClass}`);
      expect(agentClassView.json()).toMatchObject({
        flow: { target: adoptedHash, accepted: expect.arrayContaining([adoptedHash, incumbentFlowId]) },
      });

      // The agent runs the adopted version already: nothing is sent to it, and it keeps reporting its id.
      const after = heartbeats(await runJavaDriver(options));
      expect(after.map((heartbeat) => heartbeat.operations)).toEqual([[], []]);
      expect(after.map((heartbeat) => heartbeat.flowId)).toEqual([incumbentFlowId, incumbentFlowId]);
      const adoptedRunning = await console("GET", `/classes/${agentClass}/running-flows`);
      expect(adoptedRunning.json().flows).toEqual([
        expect.objectContaining({ flowId: incumbentFlowId, flowHash: adoptedHash }),
      ]);
    });

    it("takes a new version through a rollout from the adopted one, to the end", async () => {
      const published = await console("POST", `/classes/${agentClass}/flows`, javaFlow(`${agentClass} v2`));
      expect(published.status, published.body).toBe(201);
      const flowHash = published.json().hash as string;
      const started = await console("POST", "/rollouts", driverRollout(agentClass, flowHash));
      expect(started.status, started.body).toBe(201);
      const rolloutId = started.json().rolloutId as string;
      expect(started.json()).toMatchObject({ fromFlow: adoptedHash, counts: { selected: 1 } });

      await driverTakesRollout(options, api.env, { tenant, rolloutId, flowHash });
      const rollout = await console("GET", `/rollouts/${rolloutId}`);
      expect(rollout.json()).toMatchObject({
        state: "completed",
        counts: { selected: 1, healthy: 1, failed: 0 },
      });
    });
  },
);

import { describe, expect, it } from "vitest";
import {
  cppYamlFlow,
  javaParameterFlow,
  parameterValuesIn,
} from "../../../scripts/test-support/flow-fixtures.js";
import { valuesOverClassIn } from "../../../scripts/test-support/group-values.js";
import { MemoryAgentRegistry } from "../../adapters/memory/agent-registry.js";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryFlowCatalog } from "../../adapters/memory/flow-catalog.js";
import { MemoryHotState } from "../../adapters/memory/hot-state.js";
import { MemoryParameterStore } from "../../adapters/memory/parameter-store.js";
import { MemoryRevocationList } from "../../adapters/memory/revocation-list.js";
import { MemorySecretStore } from "../../adapters/memory/secret-store.js";
import { readFlowDocument } from "../flows/document.js";
import type { AgentCredential } from "../identity/credentials.js";
import type { ParameterValue } from "../parameters/model.js";
import type { ParameterScope, SecretStore } from "../parameters/ports.js";
import { cachedSecrets } from "../parameters/secret-cache.js";
import { makeRenderedFlowDownload } from "./rendered-flow-download.js";

const fleet = (tenant: string): AgentCredential => ({
  kind: "fleet",
  tenant,
  fleetName: "plant",
  serialNumber: "F1",
});
const agentCert = (tenant: string, agentId: string): AgentCredential => ({
  kind: "agent",
  tenant,
  agentId,
  serialNumber: `S-${agentId}`,
});

const PASSWORD_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:beacon/t1/kafka-AbCdEf";
const CLASS = { layer: "class", className: "pumps" } as const;

async function harness(secretStore: SecretStore = new MemorySecretStore()) {
  const flows = new MemoryFlowCatalog();
  const registry = new MemoryAgentRegistry();
  const parameters = new MemoryParameterStore();
  const revocations = new MemoryRevocationList();
  const add = async (className: string, text: string) => {
    const bytes = new TextEncoder().encode(text);
    const document = await readFlowDocument(bytes, 1024 * 1024);
    await flows.add("t1", { ...document, className, createdAt: 0, createdBy: "ops" }, bytes);
    return document.hash;
  };
  const java = await add("pumps", JSON.stringify(javaParameterFlow, null, 2));
  const plain = await add("pumps", cppYamlFlow);
  const otherClass = await add(
    "valves",
    JSON.stringify({ ...javaParameterFlow, maxTimerDrivenThreadCount: 2 }),
  );
  for (const agentId of ["a1", "a2"])
    await registry.register({ tenant: "t1", agentId, agentClass: "pumps", firstSeen: 0, lastSeen: 0 });
  const set = (scope: ParameterScope, name: string, value: ParameterValue) =>
    parameters.put("t1", scope, { name, value, updatedAt: 0, updatedBy: "ops" });
  await set(CLASS, "kafka.brokers", { value: "class-broker:9092" });
  await set(CLASS, "kafka.password", { secretRef: `${PASSWORD_ARN}:SecretString:password` });
  await set({ layer: "agent", agentId: "a1" }, "site.id", { value: "site-17" });
  const download = makeRenderedFlowDownload({
    registry,
    flows,
    parameters,
    valuesOverClass: valuesOverClassIn({ parameters, registry }),
    secrets: secretStore,
    revocations,
    hotState: new MemoryHotState(),
  });
  return { download, set, parameters, revocations, hashes: { java, plain, otherClass } };
}

describe("an agent downloading its flow rendered with its values", () => {
  it("gets the class's values under its own, the flow's defaults elsewhere, secrets read by reference", async () => {
    const secrets = new MemorySecretStore();
    secrets.put(PASSWORD_ARN, JSON.stringify({ password: "s3cret!" }));
    const { download, hashes } = await harness(secrets);
    const first = await download(fleet("t1"), { agentId: "a1", flowId: hashes.java }, undefined);
    expect(first.content?.contentType).toBe("application/json");
    expect(parameterValuesIn(first.content?.bytes)).toEqual({
      common: { "site.id": "site-17", "kafka.password": "s3cret!" },
      pumps: { "kafka.brokers": "class-broker:9092", compression: "gzip" },
      archive: { "s3.prefix": "pumps/" },
    });
    const second = await download(agentCert("t1", "a2"), { agentId: "a2", flowId: hashes.java }, undefined);
    expect(parameterValuesIn(second.content?.bytes).common?.["site.id"]).toBe("site-0");
    expect(second.tag).not.toBe(first.tag);
    expect((await download(fleet("t1"), { agentId: "a1", flowId: hashes.java }, first.tag)).notModified).toBe(
      true,
    );
  });

  it("serves a version that declares nothing as it is", async () => {
    const { download, hashes } = await harness();
    const outcome = await download(fleet("t1"), { agentId: "a1", flowId: hashes.plain }, undefined);
    expect(new TextDecoder().decode(outcome.content?.bytes)).toBe(cppYamlFlow);
    expect(outcome.tag).toBe(`"${hashes.plain}"`);
  });

  it("refuses an agent certificate asking for another agent's flow", async () => {
    const { download, hashes } = await harness();
    await expect(
      download(agentCert("t1", "a2"), { agentId: "a1", flowId: hashes.java }, undefined),
    ).rejects.toMatchObject({ code: "identity_mismatch" });
  });

  it("finds no flow for another tenant's agent, an unknown agent, another class's version or a non-hash", async () => {
    const { download, hashes } = await harness();
    for (const [credential, id] of [
      [fleet("t2"), { agentId: "a1", flowId: hashes.java }],
      [fleet("t1"), { agentId: "nobody", flowId: hashes.java }],
      [fleet("t1"), { agentId: "a1", flowId: hashes.otherClass }],
      [fleet("t1"), { agentId: "a1", flowId: "not-a-hash" }],
      [fleet("t1"), { agentId: "a/1", flowId: hashes.java }],
    ] as const)
      await expect(download(credential, id, "*"), JSON.stringify(id)).rejects.toMatchObject({
        code: "not_found",
      });
  });

  it("refuses a revoked certificate", async () => {
    const { download, revocations, hashes } = await harness();
    revocations.revoke("t1", "F1");
    await expect(
      download(fleet("t1"), { agentId: "a1", flowId: hashes.java }, undefined),
    ).rejects.toMatchObject({
      code: "certificate_revoked",
    });
  });

  it("names a parameter left without a value, or whose secret is not the tenant's or cannot be read, never its value", async () => {
    const failing: SecretStore = {
      read: () => Promise.reject(new Error("throttled")),
    };
    const cases: [SecretStore, ParameterValue | undefined, string][] = [
      [new MemorySecretStore(), undefined, "parameter_value_missing"],
      [new MemorySecretStore(), { secretRef: "ssm:/beacon/t2/kafka" }, "parameter_value_missing"],
      [new MemorySecretStore(), { secretRef: "ssm:/beacon/t1/absent" }, "secret_unavailable"],
      [failing, { secretRef: "ssm:/beacon/t1/kafka" }, "secret_unavailable"],
    ];
    for (const [secrets, password, code] of cases) {
      const { download, set, parameters, hashes } = await harness(secrets);
      if (password) await set(CLASS, "kafka.password", password);
      else await parameters.remove("t1", CLASS, "kafka.password");
      await expect(
        download(fleet("t1"), { agentId: "a1", flowId: hashes.java }, undefined),
        code,
      ).rejects.toMatchObject({ code, details: { parameter: "kafka.password" } });
    }
  });

  it("reads each secret once a minute at most, whichever agent downloads", async () => {
    const store = new MemorySecretStore();
    store.put(PASSWORD_ARN, JSON.stringify({ password: "s3cret!" }));
    const clock = new ManualClock();
    const { download, hashes } = await harness(cachedSecrets(store, clock));
    for (const agentId of ["a1", "a2", "a1"])
      await download(fleet("t1"), { agentId, flowId: hashes.java }, undefined);
    expect(store.reads).toBe(1);
    clock.advance(60_000);
    await download(fleet("t1"), { agentId: "a2", flowId: hashes.java }, undefined);
    expect(store.reads).toBe(2);
  });
});

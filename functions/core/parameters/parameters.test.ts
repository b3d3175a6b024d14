import { describe, expect, it } from "vitest";
import { consoleHarness } from "../../../scripts/test-support/console-harness.js";
import { pumpsVersionRecord } from "../../../scripts/test-support/flow-fixtures.js";
import type { FlowParameter } from "../flows/parameters.js";
import type { Principal } from "../identity/principal.js";
import { parameterValueOf } from "./console-parameters.js";
import { effectiveParameters } from "./effective.js";
import { isParameterName, MAX_PARAMETER_VALUE_BYTES, MAX_PARAMETERS_PER_LAYER } from "./model.js";
import { parseSecretReference, tenantSecretReference } from "./secret-refs.js";
import { valuesWithChanges } from "./staging.js";

const ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:plant/kafka-AbCdEf";

describe("parameter names", () => {
  it("take letters, digits, space, '-', '_' and '.', up to 256, with no space at either end", () => {
    for (const name of ["kafka.brokers", "Site ID", "s3_prefix-2", "x", "a".repeat(256), "1 2"])
      expect(isParameterName(name), name).toBe(true);
    for (const name of ["", " lead", "trail ", "a".repeat(257), "a/b", "#{x}", "naïve", "tab\there"])
      expect(isParameterName(name), name).toBe(false);
  });
});

describe("secret references", () => {
  it("name a Secrets Manager secret by its full ARN, with a JSON key or without", () => {
    expect(parseSecretReference(ARN)).toEqual({ store: "secretsmanager", secretArn: ARN });
    expect(parseSecretReference(`${ARN}:SecretString:password`)).toEqual({
      store: "secretsmanager",
      secretArn: ARN,
      jsonKey: "password",
    });
    expect(
      parseSecretReference("arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:db-Zz0099"),
    ).toMatchObject({ store: "secretsmanager" });
  });

  it("name an SSM parameter by name, with its path or without", () => {
    expect(parseSecretReference("ssm:/plant/kafka/password")).toEqual({
      store: "ssm",
      parameterName: "/plant/kafka/password",
    });
    expect(parseSecretReference("ssm:kafka-password")).toEqual({
      store: "ssm",
      parameterName: "kafka-password",
    });
  });

  it("refuse anything else: a secret itself, a partial ARN, another service, a bad key or SSM name", () => {
    for (const text of [
      "hunter2",
      "",
      "arn:aws:secretsmanager:eu-west-1:123456789012:secret:plant/kafka",
      "arn:aws:secretsmanager:eu-west-1:1234:secret:plant/kafka-AbCdEf",
      "arn:aws:s3:::bucket/key",
      "arn:aws:ssm:eu-west-1:123456789012:parameter/plant/password",
      `${ARN}:SecretString:`,
      `${ARN}:SecretString:a:b`,
      `${ARN}:SecretString:with space`,
      `${ARN}:SecretBinary:key`,
      "ssm:",
      "ssm:/",
      "ssm://double",
      "ssm:/trailing/",
      "ssm:/aws/reserved",
      "ssm:SSM-reserved",
      `ssm:/${"a".repeat(1011)}`,
    ])
      expect(parseSecretReference(text), text).toBeUndefined();
  });
});

describe("a tenant's secret references", () => {
  const arn = (name: string) => `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${name}-AbCdEf`;

  it("name only secrets below beacon/<tenant>/ in Secrets Manager and /beacon/<tenant>/ in Parameter Store", () => {
    for (const text of [
      arn("beacon/plant/kafka"),
      `${arn("beacon/plant/kafka")}:SecretString:password`,
      "ssm:/beacon/plant/kafka/password",
    ])
      expect(tenantSecretReference("plant", text), text).toEqual(parseSecretReference(text));
    for (const text of [
      ARN,
      arn("beacon/plant2/kafka"),
      arn("beacon/other/kafka"),
      arn("beacon/plant"),
      arn("beacon/plant/"),
      arn("/beacon/plant/kafka"),
      "ssm:/beacon/plant/",
      "ssm:beacon/plant/kafka",
      "ssm:/beacon/plantx/kafka",
      "ssm:/other/beacon/plant/kafka",
      "hunter2",
    ])
      expect(tenantSecretReference("plant", text), text).toBeUndefined();
  });
});

describe("a value as a request sets it", () => {
  it("is text of bounded size or a valid reference, one of the two", () => {
    expect(parameterValueOf("plant", { value: "" })).toEqual({ value: "" });
    expect(parameterValueOf("plant", { value: "é".repeat(MAX_PARAMETER_VALUE_BYTES / 2) })).toEqual({
      value: "é".repeat(MAX_PARAMETER_VALUE_BYTES / 2),
    });
    expect(parameterValueOf("plant", { secretRef: "ssm:/beacon/plant/password" })).toEqual({
      secretRef: "ssm:/beacon/plant/password",
    });
    for (const body of [
      { value: "é".repeat(MAX_PARAMETER_VALUE_BYTES / 2 + 1) },
      { secretRef: "hunter2" },
      { secretRef: "ssm:/plant/password" },
      { secretRef: "ssm:/beacon/other/password" },
      { value: "x", secretRef: "ssm:/beacon/plant/p" },
      { value: 3 },
      {},
      null,
    ])
      expect(() => parameterValueOf("plant", body), JSON.stringify(body)).toThrow(
        expect.objectContaining({ code: "invalid_request" }),
      );
  });
});

describe("effective parameters", () => {
  const declared: FlowParameter[] = [
    { name: "brokers", sensitive: false, default: "localhost:9092", description: "Kafka" },
    { name: "password", sensitive: true },
    { name: "site", sensitive: false },
  ];

  it("take the flow's default, then the class's, the group's and the agent's value, each over the one before", () => {
    expect(effectiveParameters(declared, {})).toEqual([
      { name: "brokers", declared: declared[0], value: { value: "localhost:9092" }, layer: "flow" },
      { name: "password", declared: declared[1] },
      { name: "site", declared: declared[2] },
    ]);
    const layered = effectiveParameters(declared, {
      class: [
        { name: "brokers", value: { value: "class:9092" } },
        { name: "site", value: { value: "class-site" } },
      ],
      group: [{ name: "site", value: { value: "group-site" } }],
      agent: [
        { name: "site", value: { value: "agent-site" } },
        { name: "password", value: { secretRef: "ssm:/a/password" } },
      ],
    });
    expect(layered.map(({ name, value, layer }) => ({ name, value, layer }))).toEqual([
      { name: "brokers", value: { value: "class:9092" }, layer: "class" },
      { name: "password", value: { secretRef: "ssm:/a/password" }, layer: "agent" },
      { name: "site", value: { value: "agent-site" }, layer: "agent" },
    ]);
    expect(
      effectiveParameters(declared, { class: [{ name: "site", value: { value: "c" } }], group: [] }).find(
        (parameter) => parameter.name === "site",
      ),
    ).toMatchObject({ value: { value: "c" }, layer: "class" });
  });

  it("give a sensitive parameter secret references only, never a default or plain text", () => {
    const withDefault: FlowParameter[] = [{ name: "password", sensitive: true, default: "leaked" }];
    expect(effectiveParameters(withDefault, {})).toEqual([{ name: "password", declared: withDefault[0] }]);
    expect(
      effectiveParameters(withDefault, {
        class: [{ name: "password", value: { secretRef: "ssm:/class/password" } }],
        agent: [{ name: "password", value: { value: "plain" } }],
      }),
    ).toMatchObject([{ value: { secretRef: "ssm:/class/password" }, layer: "class" }]);
  });

  it("list values no declaration names, by name, and work before any flow declares anything", () => {
    expect(
      effectiveParameters(undefined, {
        agent: [{ name: "zone", value: { value: "b" } }],
        class: [{ name: "Area", value: { value: "a" } }],
      }),
    ).toEqual([
      { name: "Area", value: { value: "a" }, layer: "class" },
      { name: "zone", value: { value: "b" }, layer: "agent" },
    ]);
  });
});

describe("the console's parameter values", () => {
  const operator: Principal = { tenant: "acme", role: "operator", subject: "bob" };
  const viewer: Principal = { ...operator, role: "viewer" };

  async function harness() {
    const console = consoleHarness();
    await console.catalog.put("acme", "pumps", {}, console.now);
    console.agent("acme", "pump-7", "pumps", 0);
    const { record } = await console.flows.add(
      "acme",
      pumpsVersionRecord(
        "f".repeat(64),
        [
          { name: "brokers", sensitive: false, default: "localhost:9092" },
          { name: "password", sensitive: true },
        ],
        console.now,
      ),
      new TextEncoder().encode('{"rootGroup":{}}'),
    );
    const classRecord = console.catalog.classes.get("acme/pumps");
    if (classRecord) classRecord.flowPolicy = { target: record.hash, accepted: [record.hash] };
    return console;
  }

  it("refuse a plain value for a parameter the class's flow declares sensitive, at either layer", async () => {
    const { api } = await harness();
    for (const put of [
      () => api.parameters.classValues.put(operator, "pumps", "password", { value: "hunter2" }),
      () => api.parameters.agentValues.put(operator, "pump-7", "password", { value: "hunter2" }),
    ])
      await expect(put()).rejects.toMatchObject({ code: "invalid_request" });
    expect(
      (
        await api.parameters.agentValues.put(operator, "pump-7", "password", {
          secretRef: `${ARN.replace("plant/kafka", "beacon/acme/kafka")}:SecretString:pw`,
        })
      ).status,
    ).toBe(201);
  });

  it("show an agent each parameter's effective value and its layer, and its own values", async () => {
    const { api } = await harness();
    await api.parameters.classValues.put(operator, "pumps", "brokers", { value: "class:9092" });
    await api.parameters.classValues.put(operator, "pumps", "site", { value: "plant-1" });
    await api.parameters.agentValues.put(operator, "pump-7", "site", { value: "plant-7" });
    const view = (await api.parameters.agentValues.list(viewer, "pump-7")).body as {
      flowHash: string;
      items: unknown[];
      agentValues: { name: string }[];
    };
    expect(view.flowHash).toBe("f".repeat(64));
    expect(view.items).toEqual([
      { name: "brokers", declared: true, sensitive: false, layer: "class", value: "class:9092" },
      { name: "password", declared: true, sensitive: true },
      { name: "site", declared: false, layer: "agent", value: "plant-7" },
    ]);
    expect(view.agentValues.map((entry) => entry.name)).toEqual(["site"]);
  });

  it("hold at most so many values at a layer, a replaced one always taken", async () => {
    const { api } = await harness();
    for (let index = 0; index < MAX_PARAMETERS_PER_LAYER; index++)
      await api.parameters.classValues.put(operator, "pumps", `p${index}`, { value: "x" });
    await expect(
      api.parameters.classValues.put(operator, "pumps", "one-more", { value: "x" }),
    ).rejects.toMatchObject({ code: "parameter_limit" });
    expect((await api.parameters.classValues.put(operator, "pumps", "p0", { value: "y" })).status).toBe(200);
  });

  it("answer not_found for a class or an agent the tenant does not have", async () => {
    const { api } = await harness();
    const other: Principal = { ...operator, tenant: "other" };
    for (const call of [
      () => api.parameters.classValues.list(other, "pumps"),
      () => api.parameters.classValues.put(other, "pumps", "site", { value: "x" }),
      () => api.parameters.agentValues.list(other, "pump-7"),
      () => api.parameters.agentValues.put(other, "pump-7", "site", { value: "x" }),
      () => api.parameters.classValues.get(operator, "pumps", "never-set"),
      () => api.parameters.agentValues.remove(operator, "pump-7", "never-set"),
    ])
      await expect(call()).rejects.toMatchObject({ code: "not_found" });
  });
  it("render the class's policy anew in the cache when a class value changes", async () => {
    const { api, hotState } = await harness();
    const cachedId = () => hotState.classFlows.get("acme/pumps")?.renderings[0]?.flowId;
    await api.parameters.classValues.put(operator, "pumps", "brokers", { value: "class:9092" });
    const first = cachedId();
    expect(hotState.classFlows.get("acme/pumps")?.accepted).toEqual([first]);
    await api.parameters.classValues.put(operator, "pumps", "brokers", { value: "other:9092" });
    expect(cachedId()).not.toBe(first);
    await api.parameters.classValues.remove(operator, "pumps", "brokers");
    await api.parameters.classValues.put(operator, "pumps", "brokers", { value: "class:9092" });
    expect(cachedId()).toBe(first);
  });

  it("give an agent's own values to its cache entry, and store none while the cache cannot take them", async () => {
    const { api, hotState } = await harness();
    hotState.agentStates.set("acme/pump-7", { lastSeen: 0 });
    await api.parameters.agentValues.put(operator, "pump-7", "site", { value: "plant-7" });
    expect(hotState.ownValues.get("acme/pump-7")).toEqual(new Map([["site", { value: "plant-7" }]]));
    await api.parameters.agentValues.remove(operator, "pump-7", "site");
    expect(hotState.ownValues.get("acme/pump-7")).toEqual(new Map());
    hotState.down = true;
    await expect(
      api.parameters.agentValues.put(operator, "pump-7", "site", { value: "plant-8" }),
    ).rejects.toMatchObject({ code: "cache_unavailable" });
    hotState.down = false;
    expect((await api.parameters.agentValues.list(viewer, "pump-7")).body).toMatchObject({ agentValues: [] });
  });

  it("stage a class's changes for a rollout when its value changes roll out: nothing in force, nothing told", async () => {
    const { api, catalog, hotState } = await harness();
    await api.parameters.classValues.put(operator, "pumps", "brokers", { value: "class:9092" });
    await api.parameters.classValues.put(operator, "pumps", "site", { value: "plant-1" });
    const cached = structuredClone(hotState.classFlows.get("acme/pumps"));
    await catalog.put("acme", "pumps", { valueChanges: "rollout" }, 0);
    const staged = await api.parameters.classValues.put(operator, "pumps", "brokers", { value: "new:9092" });
    expect(staged).toMatchObject({ status: 202, body: { name: "brokers", value: "new:9092", staged: true } });
    const removal = await api.parameters.classValues.remove(operator, "pumps", "site");
    expect(removal).toMatchObject({ status: 202, body: { name: "site", staged: true, removes: true } });
    await expect(api.parameters.classValues.remove(operator, "pumps", "never-set")).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(
      api.parameters.classValues.put(operator, "pumps", "password", { value: "hunter2" }),
    ).rejects.toMatchObject({ code: "invalid_request" });
    expect(hotState.classFlows.get("acme/pumps")).toEqual(cached);
    expect((await api.parameters.classValues.get(viewer, "pumps", "brokers")).body).toMatchObject({
      value: "class:9092",
    });
    const listed = (await api.parameters.classValues.list(viewer, "pumps")).body as {
      items: { name: string; value?: string }[];
      staged: { name: string; value?: string; removes?: boolean }[];
    };
    expect(listed.items.map(({ name, value }) => ({ name, value }))).toEqual([
      { name: "brokers", value: "class:9092" },
      { name: "site", value: "plant-1" },
    ]);
    expect(listed.staged).toMatchObject([
      { name: "brokers", value: "new:9092", staged: true },
      { name: "site", staged: true, removes: true },
    ]);
    await expect(api.parameters.classValues.discardStaged(viewer, "pumps")).rejects.toMatchObject({
      code: "forbidden",
    });
    const discarded = (await api.parameters.classValues.discardStaged(operator, "pumps")).body as {
      items: unknown[];
    };
    expect(discarded.items).toHaveLength(2);
    expect((await api.parameters.classValues.list(viewer, "pumps")).body).not.toHaveProperty("staged");
  });

  it("count a class's staged values against the limit of a layer, as they will be once in force", async () => {
    const { api, catalog } = await harness();
    await catalog.put("acme", "pumps", { valueChanges: "rollout" }, 0);
    for (let index = 0; index < MAX_PARAMETERS_PER_LAYER; index++)
      await api.parameters.classValues.put(operator, "pumps", `p${index}`, { value: "x" });
    await expect(
      api.parameters.classValues.put(operator, "pumps", "one-more", { value: "x" }),
    ).rejects.toMatchObject({ code: "parameter_limit" });
    await api.parameters.classValues.remove(operator, "pumps", "p0");
    expect((await api.parameters.classValues.put(operator, "pumps", "one-more", { value: "x" })).status).toBe(
      202,
    );
  });
});

describe("a class's values with its staged changes", () => {
  const record = (name: string, value: string, updatedAt = 1) => ({
    name,
    value: { value },
    updatedAt,
    updatedBy: "alice",
  });

  it("take each staged value, drop each staged removal and keep the names no change concerns, by name", () => {
    expect(
      valuesWithChanges(
        [record("site", "plant-1"), record("brokers", "b1"), record("prefix", "s3://a")],
        [
          record("brokers", "b2", 2),
          { name: "prefix", updatedAt: 2, updatedBy: "bob" },
          record("added", "y", 2),
        ],
      ),
    ).toEqual([record("added", "y", 2), record("brokers", "b2", 2), record("site", "plant-1")]);
    expect(valuesWithChanges([record("site", "plant-1")], [])).toEqual([record("site", "plant-1")]);
  });
});

import { expect, it } from "vitest";
import type { ParameterRecord } from "../../core/parameters/model.js";
import type { ParameterScope, ParameterStore } from "../../core/parameters/ports.js";
import { contract } from "./contract.js";

const pumps: ParameterScope = { layer: "class", className: "pumps" };
const pump7: ParameterScope = { layer: "agent", agentId: "pump-7" };
const SECRET =
  "arn:aws:secretsmanager:eu-west-1:123456789012:secret:plant/kafka-AbCdEf:SecretString:password";

const recordOf = (name: string, value: ParameterRecord["value"], updatedAt = 1): ParameterRecord => ({
  name,
  value,
  updatedAt,
  updatedBy: "alice",
});

/** Values by tenant, scope and name: each scope's read whole, by name, apart from every other scope's. */
export const parameterStoreContract = contract<ParameterStore>("the parameter store", (the) => {
  it("keeps a scope's values by name, plain text and references each as set", async () => {
    const store = the.subject;
    const values = [
      recordOf("site id", { value: "plant-12" }),
      recordOf("kafka.password", { secretRef: SECRET }),
      recordOf("empty", { value: "" }),
      recordOf("Kafka-Brokers", { value: "b1:9092,b2:9092" }),
    ];
    for (const record of values) expect(await store.put(the.tenant, pumps, record)).toBe("created");
    expect((await store.list(the.tenant, pumps)).map((record) => record.name)).toEqual([
      "Kafka-Brokers",
      "empty",
      "kafka.password",
      "site id",
    ]);
    expect(await store.list(the.tenant, pumps)).toEqual(
      expect.arrayContaining(values.map((record) => expect.objectContaining(record))),
    );
    expect(await store.get(the.tenant, pumps, "kafka.password")).toEqual(values[1]);
    expect(await store.get(the.tenant, pumps, "nothing")).toBeUndefined();
  });

  it("replaces a name's value, a reference with text and back, and removes it", async () => {
    const store = the.subject;
    await store.put(the.tenant, pumps, recordOf("password", { value: "placeholder" }));
    const replaced = recordOf("password", { secretRef: "ssm:/plant/password" }, 2);
    expect(await store.put(the.tenant, pumps, replaced)).toBe("replaced");
    expect(await store.get(the.tenant, pumps, "password")).toEqual(replaced);
    expect(await store.remove(the.tenant, pumps, "password")).toEqual(replaced);
    expect(await store.remove(the.tenant, pumps, "password")).toBeUndefined();
    expect(await store.list(the.tenant, pumps)).toEqual([]);
  });

  it("keeps classes, agents and tenants apart, a class and an agent of the same name included", async () => {
    const store = the.subject;
    await store.put(the.tenant, pumps, recordOf("site", { value: "class" }));
    await store.put(the.tenant, { layer: "agent", agentId: "pumps" }, recordOf("site", { value: "agent" }));
    await store.put(the.tenant, pump7, recordOf("site", { value: "pump-7" }));
    await store.put(`${the.tenant}-other`, pumps, recordOf("site", { value: "other tenant" }));
    expect((await store.list(the.tenant, pumps)).map((record) => record.value)).toEqual([{ value: "class" }]);
    expect((await store.get(the.tenant, pump7, "site"))?.value).toEqual({ value: "pump-7" });
    expect(await store.list(the.tenant, { layer: "class", className: "valves" })).toEqual([]);
    await store.remove(the.tenant, pump7, "site");
    expect((await store.get(the.tenant, pumps, "site"))?.value).toEqual({ value: "class" });
  });

  it("keeps a group's values apart from a class's and an agent's of the same name, out of the agents' index", async () => {
    const store = the.subject;
    const night: ParameterScope = { layer: "group", group: "pumps" };
    expect(await store.put(the.tenant, night, recordOf("site", { value: "group" }))).toBe("created");
    await store.put(the.tenant, pumps, recordOf("site", { value: "class" }));
    await store.put(the.tenant, { layer: "agent", agentId: "pumps" }, recordOf("site", { value: "agent" }));
    await store.put(`${the.tenant}-other`, night, recordOf("site", { value: "other tenant" }));
    expect(await store.list(the.tenant, night)).toEqual([recordOf("site", { value: "group" })]);
    expect(await store.agentValuesOf(the.tenant, "site")).toEqual([
      { agentId: "pumps", record: recordOf("site", { value: "agent" }) },
    ]);
    expect(await store.remove(the.tenant, night, "site")).toEqual(recordOf("site", { value: "group" }));
    expect(await store.list(the.tenant, night)).toEqual([]);
    expect((await store.get(the.tenant, pumps, "site"))?.value).toEqual({ value: "class" });
  });

  it("lists the agents holding their own value of a name, tenant-wide by agent id, and not once removed", async () => {
    const store = the.subject;
    await store.put(the.tenant, { layer: "agent", agentId: "valve-2" }, recordOf("site", { value: "v2" }));
    await store.put(the.tenant, pump7, recordOf("site", { secretRef: SECRET }, 2));
    await store.put(the.tenant, pump7, recordOf("site id", { value: "another name" }));
    await store.put(the.tenant, { layer: "agent", agentId: "pump-8" }, recordOf("site", { value: "p8" }));
    await store.put(the.tenant, pumps, recordOf("site", { value: "the class's" }));
    await store.put(`${the.tenant}-other`, pump7, recordOf("site", { value: "other tenant" }));
    await store.remove(the.tenant, { layer: "agent", agentId: "pump-8" }, "site");
    expect(await store.agentValuesOf(the.tenant, "site")).toEqual([
      { agentId: "pump-7", record: recordOf("site", { secretRef: SECRET }, 2) },
      { agentId: "valve-2", record: recordOf("site", { value: "v2" }) },
    ]);
    expect(await store.agentValuesOf(the.tenant, "nothing")).toEqual([]);
  });

  it("keeps a class's staged changes apart from its values, a removal included, until discarded", async () => {
    const store = the.subject;
    await store.put(the.tenant, pumps, recordOf("site", { value: "in force" }));
    await store.put(the.tenant, pumps, recordOf("broker", { value: "b1:9092" }));
    await store.stage(the.tenant, "pumps", recordOf("site", { value: "staged" }, 2));
    await store.stage(the.tenant, "pumps", recordOf("site", { secretRef: SECRET }, 3));
    await store.stage(the.tenant, "pumps", { name: "broker", updatedAt: 4, updatedBy: "bob" });
    await store.stage(`${the.tenant}-other`, "pumps", recordOf("site", { value: "other tenant" }));
    expect(await store.staged(the.tenant, "pumps")).toEqual([
      { name: "broker", updatedAt: 4, updatedBy: "bob" },
      recordOf("site", { secretRef: SECRET }, 3),
    ]);
    expect((await store.list(the.tenant, pumps)).map((record) => record.value)).toEqual([
      { value: "b1:9092" },
      { value: "in force" },
    ]);
    expect(await store.staged(the.tenant, "valves")).toEqual([]);
    expect(await store.discardStaged(the.tenant, "pumps")).toHaveLength(2);
    expect(await store.staged(the.tenant, "pumps")).toEqual([]);
    expect(await store.discardStaged(the.tenant, "pumps")).toEqual([]);
    expect(await store.staged(`${the.tenant}-other`, "pumps")).toHaveLength(1);
    expect(await store.list(the.tenant, pumps)).toHaveLength(2);
  });

  it("removes a staged change only while it is staged as given, and keeps the values a rollout froze", async () => {
    const store = the.subject;
    await store.stage(the.tenant, "pumps", recordOf("site", { value: "staged" }, 2));
    await store.stage(the.tenant, "pumps", recordOf("broker", { value: "b2" }, 2));
    await store.stage(the.tenant, "pumps", recordOf("broker", { value: "b3" }, 3));
    await store.unstage(the.tenant, "pumps", [
      recordOf("site", { value: "staged" }, 2),
      recordOf("broker", { value: "b2" }, 2),
      recordOf("never", { value: "x" }, 2),
    ]);
    expect(await store.staged(the.tenant, "pumps")).toEqual([recordOf("broker", { value: "b3" }, 3)]);
    const frozen = [recordOf("site", { value: "s" }), recordOf("kafka.password", { secretRef: SECRET })];
    await store.freeze(the.tenant, "pumps", "ro-1", frozen);
    expect(await store.frozen(the.tenant, "pumps", "ro-1")).toEqual([frozen[1], frozen[0]]);
    expect(await store.frozen(the.tenant, "valves", "ro-1")).toEqual([]);
    expect(await store.frozen(the.tenant, "pumps", "ro-2")).toEqual([]);
    expect(await store.list(the.tenant, pumps)).toEqual([]);
  });
});

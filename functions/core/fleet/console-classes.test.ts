import { describe, expect, it } from "vitest";
import { valuesOverClassOfEachIn } from "../../../scripts/test-support/group-values.js";
import { MemoryClassCatalog } from "../../adapters/memory/class-catalog.js";
import { ManualClock } from "../../adapters/memory/clock.js";
import { MemoryFleetHotState } from "../../adapters/memory/fleet-hot-state.js";
import { MemoryFleetRegistry } from "../../adapters/memory/fleet-registry.js";
import { MemoryFlowCatalog } from "../../adapters/memory/flow-catalog.js";
import { MemoryParameterStore } from "../../adapters/memory/parameter-store.js";
import type { Principal } from "../identity/principal.js";
import { makeFlowRenderings, renderingClassFlows } from "../parameters/rendered-flow-ids.js";
import { makeClassesApi } from "./console-classes.js";

const operator: Principal = { tenant: "acme", role: "operator", subject: "bob" };

function harness() {
  const catalog = new MemoryClassCatalog();
  const hotState = new MemoryFleetHotState();
  const clock = new ManualClock();
  const parameters = new MemoryParameterStore();
  const flows = new MemoryFlowCatalog();
  const api = makeClassesApi({
    catalog,
    flows,
    registry: new MemoryFleetRegistry(),
    hotState,
    classFlowCache: renderingClassFlows(
      hotState,
      makeFlowRenderings({
        flows,
        parameters,
        valuesOverClassOfEach: valuesOverClassOfEachIn({ parameters }),
      }),
    ),
    clock,
    registryLagMs: 0,
    // No operations are held here: the console's use cases test that they follow a change of windows.
    followHeldOperations: async () => ({}),
  });
  return { catalog, hotState, clock, api };
}

describe("a change of a class's heartbeat interval", () => {
  it("reaches the cache's copy the heartbeats read at once, with the class's policy kept beside it", async () => {
    const { catalog, hotState, clock, api } = harness();
    await api.put(operator, "pumps", { description: "no interval yet" });
    expect(hotState.classPeriods.has("acme/pumps")).toBe(false);

    await api.put(operator, "pumps", { heartbeatIntervalSeconds: 300 });
    expect(hotState.classPeriods.get("acme/pumps")).toBe(300_000);
    expect(hotState.classFlows.get("acme/pumps")).toBeUndefined();

    // A flow published to the class since, as the rollout store writes it on the class.
    const flowPolicy = { target: "flow-2", accepted: ["flow-1", "flow-2"] };
    const record = catalog.classes.get("acme/pumps");
    if (record) record.flowPolicy = flowPolicy;
    clock.advance(1_000);
    await api.put(operator, "pumps", { heartbeatIntervalSeconds: 20, ackTimeoutSeconds: 90 });
    expect(hotState.classPeriods.get("acme/pumps")).toBe(20_000);
    expect(hotState.classFlows.get("acme/pumps")).toEqual({
      ...flowPolicy,
      ackTimeoutMs: 90_000,
      renderings: [],
    });
  });
});

describe("a class's label sources", () => {
  it("are shown with the class once set, and a source Beacon cannot read is refused, the class unchanged", async () => {
    const { api } = harness();
    const labelSources = [{ label: "site", from: "property:nifi.c2.site" }];
    const { body } = await api.put(operator, "pumps", { labelSources });
    expect(body).toMatchObject({ name: "pumps", labelSources });

    await expect(
      api.put(operator, "pumps", { labelSources: [{ label: "os", from: "device:osName" }] }),
    ).rejects.toMatchObject({ code: "invalid_request", message: expect.stringMatching(/"device:osName"/) });
    expect((await api.get(operator, "pumps")).body).toMatchObject({ labelSources });
  });
});

import { expect, it } from "vitest";
import type { ClassAgentSettings, ClassFlowPolicies } from "../../core/agents/ports.js";
import type { ClassFlowPolicy } from "../../core/flows/policy.js";
import { contract } from "./contract.js";

/**
 * The registry's class flow policies as the agent API loads them, and how a class comes to hold one
 * (`hold` with undefined: a class that exists without a policy) and a heartbeat interval. The policy held
 * is the one in force, the class's acknowledgement timeout included.
 */
export interface ClassFlowPoliciesSubject {
  policies: ClassFlowPolicies;
  hold(
    tenant: string,
    className: string,
    policy: ClassFlowPolicy | undefined,
    settings?: Pick<ClassAgentSettings, "heartbeatIntervalSeconds" | "labelSources">,
  ): Promise<void>;
}

export const classFlowPoliciesContract = contract<ClassFlowPoliciesSubject>(
  "the class flow policies",
  (the) => {
    const policy: ClassFlowPolicy = {
      target: "flow-2",
      accepted: ["flow-1", "flow-2"],
      ackTimeoutMs: 90_000,
    };

    it("reads the policy a class holds, and none for a class without one or no class at all", async () => {
      const { policies, hold } = the.subject;
      await hold(the.tenant, "pumps", policy);
      await hold(the.tenant, "valves", undefined);
      expect(await policies.settingsOf(the.tenant, "pumps")).toEqual({ policy });
      expect(await policies.settingsOf(the.tenant, "valves")).toEqual({});
      expect(await policies.settingsOf(the.tenant, "drains")).toEqual({});
      expect(await policies.settingsOf(`${the.tenant}-other`, "pumps")).toEqual({});
    });

    it("reads the class's heartbeat interval with its policy, or without one", async () => {
      const { policies, hold } = the.subject;
      await hold(the.tenant, "pumps", policy, { heartbeatIntervalSeconds: 20 });
      await hold(the.tenant, "valves", undefined, { heartbeatIntervalSeconds: 300 });
      expect(await policies.settingsOf(the.tenant, "pumps")).toEqual({
        policy,
        heartbeatIntervalSeconds: 20,
      });
      expect(await policies.settingsOf(the.tenant, "valves")).toEqual({ heartbeatIntervalSeconds: 300 });
    });

    it("reads the class's label sources with its policy, or without one", async () => {
      const { policies, hold } = the.subject;
      const labelSources = [{ label: "site", from: "property:nifi.c2.site" }];
      await hold(the.tenant, "pumps", policy, { labelSources });
      await hold(the.tenant, "valves", undefined, { labelSources });
      expect(await policies.settingsOf(the.tenant, "pumps")).toEqual({ policy, labelSources });
      expect(await policies.settingsOf(the.tenant, "valves")).toEqual({ labelSources });
    });

    it("hands out copies: what a caller does to a policy read stays with the caller", async () => {
      const { policies, hold } = the.subject;
      await hold(the.tenant, "pumps", { target: "flow-1", accepted: ["flow-1"] });
      const read = (await policies.settingsOf(the.tenant, "pumps")).policy as ClassFlowPolicy;
      read.accepted.push("changed by its reader");
      expect((await policies.settingsOf(the.tenant, "pumps")).policy).toEqual({
        target: "flow-1",
        accepted: ["flow-1"],
      });
    });
  },
);

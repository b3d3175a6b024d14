import { expect, it } from "vitest";
import type { ClassFlowPolicy } from "../../core/flows/policy.js";
import type { ClassFlowPolicies } from "../../core/flows/ports.js";
import { contract } from "./contract.js";

/**
 * The registry's class flow policies as the agent API loads them, and how a class comes to hold one
 * (`hold` with undefined: a class that exists without a policy). The policy held is the one in force,
 * the class's acknowledgement timeout included.
 */
export interface ClassFlowPoliciesSubject {
  policies: ClassFlowPolicies;
  hold(tenant: string, className: string, policy: ClassFlowPolicy | undefined): Promise<void>;
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
      expect(await policies.policyOf(the.tenant, "pumps")).toEqual(policy);
      expect(await policies.policyOf(the.tenant, "valves")).toBeUndefined();
      expect(await policies.policyOf(the.tenant, "drains")).toBeUndefined();
      expect(await policies.policyOf(`${the.tenant}-other`, "pumps")).toBeUndefined();
    });

    it("hands out copies: what a caller does to a policy read stays with the caller", async () => {
      const { policies, hold } = the.subject;
      await hold(the.tenant, "pumps", { target: "flow-1", accepted: ["flow-1"] });
      const read = (await policies.policyOf(the.tenant, "pumps")) as ClassFlowPolicy;
      read.accepted.push("changed by its reader");
      expect(await policies.policyOf(the.tenant, "pumps")).toEqual({
        target: "flow-1",
        accepted: ["flow-1"],
      });
    });
  },
);

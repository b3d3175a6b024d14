import { DynamoClassCatalog } from "../dynamodb/class-catalog.js";
import { DynamoClassFlowPolicies } from "../dynamodb/class-flow-policies.js";
import { DynamoRolloutStore } from "../dynamodb/rollout-store.js";
import { MemoryClassFlowPolicies } from "../memory/class-flow-policies.js";
import { classFlowPoliciesContract } from "./class-flow-policies.contract.js";
import { tableOfItsOwn } from "./local-stack.js";
import { canaryRollout } from "./rollout-store.contract.js";

const table = tableOfItsOwn();

// On the table a policy is written with the rollout that sets it, and takes the class's acknowledgement timeout.
classFlowPoliciesContract("DynamoDB", () => {
  const catalog = new DynamoClassCatalog(table.documents, table.name);
  const rollouts = new DynamoRolloutStore(table.documents, table.name);
  return {
    policies: new DynamoClassFlowPolicies(table.documents, table.name),
    hold: async (tenant, className, policy, settings) => {
      const ackTimeoutSeconds = policy?.ackTimeoutMs === undefined ? undefined : policy.ackTimeoutMs / 1000;
      await catalog.put(tenant, className, { ackTimeoutSeconds, ...settings }, Date.UTC(2026, 10, 21));
      if (!policy) return;
      await rollouts.start({ ...canaryRollout(tenant, className), toFlow: policy.target }, policy);
    },
  };
});
classFlowPoliciesContract("the memory fake", () => {
  const policies = new MemoryClassFlowPolicies();
  return {
    policies,
    hold: async (tenant, className, policy, settings = {}) => {
      if (policy) policies.policies.set(`${tenant}/${className}`, policy);
      if (settings.heartbeatIntervalSeconds !== undefined)
        policies.heartbeatIntervals.set(`${tenant}/${className}`, settings.heartbeatIntervalSeconds);
      if (settings.labelSources) policies.labelSources.set(`${tenant}/${className}`, settings.labelSources);
    },
  };
});

import type { LabelSource } from "../../core/agents/label-sources.js";
import type { ClassFlowPolicies } from "../../core/agents/ports.js";
import { type ClassFlowPolicy, policyInForce } from "../../core/flows/policy.js";
import type { ClassFlowSettings } from "../../core/flows/ports.js";
import { dropUndefined } from "../../core/json.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { Keys } from "./keys.js";

/**
 * The flow policy the rollout store keeps on the class item, with the class's acknowledgement timeout, and
 * the class's heartbeat interval, for the agent API's cache.
 */
export class DynamoClassFlowPolicies implements ClassFlowPolicies {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async settingsOf(tenant: string, className: string): Promise<ClassFlowSettings> {
    // Sent directly: a new agent's first heartbeat reads it, and no other SDK command of that heartbeat would
    // make a cold container pay for the SDK's command pipeline.
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.agentClass(tenant, className),
      ProjectionExpression: "flowPolicy, ackTimeoutSeconds, heartbeatIntervalSeconds, labelSources",
      // The cache keeps what this returns for minutes: a policy written a moment ago must be in it.
      ConsistentRead: true,
    });
    const policy = Item?.flowPolicy as ClassFlowPolicy | undefined;
    return dropUndefined({
      policy: policy && policyInForce(policy, Item?.ackTimeoutSeconds as number | undefined),
      heartbeatIntervalSeconds: Item?.heartbeatIntervalSeconds as number | undefined,
      labelSources: Item?.labelSources as LabelSource[] | undefined,
    });
  }
}

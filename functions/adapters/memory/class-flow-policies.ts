import type { LabelSource } from "../../core/agents/label-sources.js";
import type { ClassFlowPolicies } from "../../core/agents/ports.js";
import type { ClassFlowPolicy } from "../../core/flows/policy.js";
import { dropUndefined } from "../../core/json.js";

/** Classes' flow policies and heartbeat intervals as the registry holds them; tests set them directly. */
export class MemoryClassFlowPolicies implements ClassFlowPolicies {
  /** By tenant/class. */
  readonly policies = new Map<string, ClassFlowPolicy>();
  /** By tenant/class, in seconds. */
  readonly heartbeatIntervals = new Map<string, number>();
  /** By tenant/class. */
  readonly labelSources = new Map<string, LabelSource[]>();
  calls = 0;

  async settingsOf(tenant: string, className: string) {
    this.calls++;
    const policy = this.policies.get(`${tenant}/${className}`);
    return dropUndefined({
      policy: policy && structuredClone(policy),
      heartbeatIntervalSeconds: this.heartbeatIntervals.get(`${tenant}/${className}`),
      labelSources: structuredClone(this.labelSources.get(`${tenant}/${className}`)),
    });
  }
}

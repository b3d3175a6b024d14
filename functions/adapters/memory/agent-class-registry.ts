import type { AgentClassRegistry } from "../../core/agents/ports.js";

export class MemoryAgentClassRegistry implements AgentClassRegistry {
  readonly classes = new Map<string, number>();
  calls = 0;

  async ensure(tenant: string, agentClass: string, now: number) {
    this.calls++;
    const key = `${tenant}/${agentClass}`;
    if (!this.classes.has(key)) this.classes.set(key, now);
  }
}

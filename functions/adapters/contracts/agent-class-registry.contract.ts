import { expect, it } from "vitest";
import type { AgentClassRegistry } from "../../core/agents/ports.js";
import { contract } from "./contract.js";

const START = Date.UTC(2026, 10, 21);

/** The agent API's classes as it creates them on first sight; `createdAt` reads a class as the registry holds it. */
export interface AgentClassRegistrySubject {
  classes: AgentClassRegistry;
  createdAt(tenant: string, agentClass: string): Promise<number | undefined>;
}

export const agentClassRegistryContract = contract<AgentClassRegistrySubject>(
  "the agent class registry",
  (the) => {
    it("creates a class on its first sight and leaves it as it is at later ones", async () => {
      const { classes, createdAt } = the.subject;
      expect(await createdAt(the.tenant, "pumps")).toBeUndefined();
      await classes.ensure(the.tenant, "pumps", START);
      await classes.ensure(the.tenant, "pumps", START + 60_000);
      expect(await createdAt(the.tenant, "pumps")).toBe(START);
      expect(await createdAt(`${the.tenant}-other`, "pumps")).toBeUndefined();
    });
  },
);

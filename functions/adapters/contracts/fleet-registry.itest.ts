import { DynamoAgentRegistry } from "../dynamodb/agent-registry.js";
import { DynamoEventOutbox } from "../dynamodb/event-outbox.js";
import { DynamoFleetRegistry } from "../dynamodb/fleet-registry.js";
import { MemoryEventOutbox } from "../memory/event-outbox.js";
import { MemoryFleetRegistry } from "../memory/fleet-registry.js";
import { fleetRegistryContract } from "./fleet-registry.contract.js";
import { tableOfItsOwn } from "./local-stack.js";

const table = tableOfItsOwn();

fleetRegistryContract("DynamoDB", () => {
  const agents = new DynamoAgentRegistry(table.documents, table.name);
  const outbox = new DynamoEventOutbox(table.documents, table.name);
  return {
    registry: new DynamoFleetRegistry(table.documents, table.name),
    add: (record) => agents.register(record),
    recordSeen: (tenant, agentId, lastSeen) => agents.recordSeen(tenant, agentId, lastSeen),
    staged: () => outbox.pending(Number.MAX_SAFE_INTEGER, 100),
  };
});
fleetRegistryContract("the memory fake", () => {
  const outbox = new MemoryEventOutbox();
  const registry = new MemoryFleetRegistry(outbox);
  return {
    registry,
    add: async (record) => registry.add(record),
    recordSeen: async (tenant, agentId, lastSeen) => registry.recordSeen(tenant, agentId, lastSeen),
    staged: () => outbox.pending(Number.MAX_SAFE_INTEGER, 100),
  };
});

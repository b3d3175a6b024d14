import { DynamoAgentClassRegistry } from "../dynamodb/agent-registry.js";
import { DynamoClassCatalog } from "../dynamodb/class-catalog.js";
import { MemoryAgentClassRegistry } from "../memory/agent-class-registry.js";
import { agentClassRegistryContract } from "./agent-class-registry.contract.js";
import { tableOfItsOwn } from "./local-stack.js";

const table = tableOfItsOwn();

agentClassRegistryContract("DynamoDB", () => {
  const catalog = new DynamoClassCatalog(table.documents, table.name);
  return {
    classes: new DynamoAgentClassRegistry(table.documents, table.name),
    createdAt: async (tenant, agentClass) => (await catalog.get(tenant, agentClass))?.createdAt,
  };
});
agentClassRegistryContract("the memory fake", () => {
  const classes = new MemoryAgentClassRegistry();
  return {
    classes,
    createdAt: async (tenant, agentClass) => classes.classes.get(`${tenant}/${agentClass}`),
  };
});

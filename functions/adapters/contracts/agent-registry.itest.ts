import { DynamoAgentRegistry } from "../dynamodb/agent-registry.js";
import { MemoryAgentRegistry } from "../memory/agent-registry.js";
import { agentRegistryContract } from "./agent-registry.contract.js";
import { tableOfItsOwn } from "./local-stack.js";

const table = tableOfItsOwn();

agentRegistryContract("DynamoDB", () => new DynamoAgentRegistry(table.documents, table.name));
agentRegistryContract("the memory fake", () => new MemoryAgentRegistry());

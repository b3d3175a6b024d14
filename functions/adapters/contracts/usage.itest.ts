import { DynamoUsage } from "../dynamodb/usage.js";
import { MemoryUsage } from "../memory/usage.js";
import { tableOfItsOwn } from "./local-stack.js";
import { usageContract } from "./usage.contract.js";

const table = tableOfItsOwn();

usageContract("DynamoDB", () => new DynamoUsage(table.documents, table.name));
usageContract("the memory fake", () => new MemoryUsage());

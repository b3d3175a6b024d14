import { DynamoFlowCatalog } from "../dynamodb/flow-catalog.js";
import { MemoryFlowCatalog } from "../memory/flow-catalog.js";
import { flowCatalogContract } from "./flow-catalog.contract.js";
import { tableOfItsOwn } from "./local-stack.js";

const table = tableOfItsOwn();

flowCatalogContract("DynamoDB", () => new DynamoFlowCatalog(table.documents, table.name));
flowCatalogContract("the memory fake", () => new MemoryFlowCatalog());

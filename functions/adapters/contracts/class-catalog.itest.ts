import { DynamoClassCatalog } from "../dynamodb/class-catalog.js";
import { MemoryClassCatalog } from "../memory/class-catalog.js";
import { classCatalogContract } from "./class-catalog.contract.js";
import { tableOfItsOwn } from "./local-stack.js";

const table = tableOfItsOwn();

classCatalogContract("DynamoDB", () => new DynamoClassCatalog(table.documents, table.name));
classCatalogContract("the memory fake", () => new MemoryClassCatalog());

import { DynamoOperationStore } from "../dynamodb/operation-store.js";
import { MemoryOperationStore } from "../memory/operation-store.js";
import { tableOfItsOwn } from "./local-stack.js";
import { operationStoreContract } from "./operation-store.contract.js";

const table = tableOfItsOwn();

operationStoreContract("DynamoDB", () => new DynamoOperationStore(table.documents, table.name));
operationStoreContract("the memory fake", () => new MemoryOperationStore());

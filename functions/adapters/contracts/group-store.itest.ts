import { DynamoGroupStore } from "../dynamodb/group-store.js";
import { MemoryGroupStore } from "../memory/group-store.js";
import { groupStoreContract } from "./group-store.contract.js";
import { tableOfItsOwn } from "./local-stack.js";

const table = tableOfItsOwn();

groupStoreContract("DynamoDB", () => new DynamoGroupStore(table.documents, table.name));
groupStoreContract("the memory fake", () => new MemoryGroupStore());

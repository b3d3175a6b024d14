import { DynamoStagingParameterStore } from "../dynamodb/staged-parameter-store.js";
import { MemoryParameterStore } from "../memory/parameter-store.js";
import { tableOfItsOwn } from "./local-stack.js";
import { parameterStoreContract } from "./parameter-store.contract.js";

const table = tableOfItsOwn();

parameterStoreContract("DynamoDB", () => new DynamoStagingParameterStore(table.documents, table.name));
parameterStoreContract("the memory fake", () => new MemoryParameterStore());

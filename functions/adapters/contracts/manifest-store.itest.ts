import { DynamoManifestStore } from "../dynamodb/manifest-store.js";
import { MemoryManifestStore } from "../memory/manifest-store.js";
import { tableOfItsOwn } from "./local-stack.js";
import { manifestStoreContract } from "./manifest-store.contract.js";

const table = tableOfItsOwn();

manifestStoreContract("DynamoDB", () => new DynamoManifestStore(table.documents, table.name));
manifestStoreContract("the memory fake", () => new MemoryManifestStore());
